package modeltest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/vector/local"

	"github.com/agentmem/agentmem/internal/killtest"
)

// Environment of the child process that runs a sequence on SQLite and is
// killed at a crash point.
const (
	crashEnvDir   = "AGENTMEM_MODEL_CRASH_DIR"
	crashEnvSeed  = "AGENTMEM_MODEL_CRASH_SEED"
	crashEnvOp    = "AGENTMEM_MODEL_CRASH_OP"
	crashEnvWrite = "AGENTMEM_MODEL_CRASH_WRITE"
	crashEnvTail  = "AGENTMEM_MODEL_CRASH_TAIL"
)

// crashSeq is the sequence a crash run replays: a seed's operations, and,
// with tail 1 + a thread index, activationTail of that thread after them.
type crashSeq struct {
	seed uint64
	tail int
}

func (c crashSeq) ops() []op {
	ops := genOps(c.seed, crashSteps)
	if c.tail > 0 {
		ops = append(ops, activationTail(c.tail-1)...)
	}
	return ops
}

// activationTail ends a sequence so that ObserveNow activates buffered
// observations at a fixed point: a reopen awaits the buffer jobs in flight
// (a job's chunk is written in the background, at no fixed point of an
// operation), then ObserveNow of the thread activates its chunks and
// observes the rest.
func activationTail(thread int) []op {
	return []op{{Kind: "reopen"}, {Kind: "observe", Thread: thread}}
}

// activationSeed is a seed whose setup buffers observations (see setupOf).
const activationSeed = 1

// crashKinds are the operations of several writes whose crash points the
// test visits, and whether the API says running them again finishes them;
// an operation of any kind that activates buffered observations is visited
// too (as "activation"), and run again only if its kind says so.
var crashKinds = map[string]bool{"move": true, "clone": false, "observe": true, "turn": false, "deleteThread": true}

const crashSteps = 40

// crashSeeds are the seeds whose crash points CI visits: the first turn,
// move, clone and thread deletion among them.
var crashSeeds = []uint64{1, 2, 5, 12}

// snapshot is the model and the embedder's state as a child leaves them
// before the operation it is killed in.
type snapshot struct {
	Threads map[string]snapThread
	Msgs    map[string]snapMsg
	WM      map[string]string
	EmbDown bool
}

type snapThread struct {
	Resource string
	Meta     map[string]any
	MoveFrom []string
}

type snapMsg struct {
	Thread, Resource, Role, Sig string
	Meta                        map[string]any
	At                          time.Time
}

func (r *runner) snapshot() snapshot {
	s := snapshot{Threads: map[string]snapThread{}, Msgs: map[string]snapMsg{}, WM: r.mod.wm, EmbDown: r.emb.down.Load()}
	for id, th := range r.mod.threads {
		s.Threads[id] = snapThread{th.resource, th.meta, th.moveFrom}
	}
	for id, m := range r.mod.msgs {
		s.Msgs[id] = snapMsg{m.thread, m.resource, m.role, m.sig, m.meta, m.at}
	}
	return s
}

func (s snapshot) model() *model {
	m := newModel()
	m.wm = s.WM
	for id, th := range s.Threads {
		m.threads[id] = &mThread{id: id, resource: th.Resource, meta: th.Meta, moveFrom: th.MoveFrom}
	}
	for id, x := range s.Msgs {
		m.msgs[id] = &mMessage{id: id, thread: x.Thread, resource: x.Resource, role: x.Role, sig: x.Sig, meta: x.Meta, at: x.At}
	}
	return m
}

// TestModelCrashChild is the process the crash test starts: it runs the
// seed's operations before the chosen one on SQLite, saves the model, and
// stops for good after the chosen write of the chosen operation. Run
// directly, it does nothing.
func TestModelCrashChild(t *testing.T) {
	dir := os.Getenv(crashEnvDir)
	if dir == "" {
		return
	}
	seed, _ := strconv.ParseUint(os.Getenv(crashEnvSeed), 10, 64)
	tail, _ := strconv.Atoi(os.Getenv(crashEnvTail))
	at, _ := strconv.Atoi(os.Getenv(crashEnvOp))
	write, _ := strconv.Atoi(os.Getenv(crashEnvWrite))
	hook := &writeHook{stopAt: write}
	r := crashRunner(t, dir, seed, hook)
	ops := crashSeq{seed, tail}.ops()
	for i, o := range ops[:at] {
		if err := r.apply(i, o); err != nil {
			t.Fatalf("step %d %v: %v", i, o, err)
		}
	}
	b, err := json.Marshal(r.snapshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "model.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	hook.mu.Lock()
	hook.armed = true
	hook.mu.Unlock()
	err = r.apply(at, ops[at])
	fmt.Printf("DONE after %d writes: %v\n", hook.n, err)
	os.Exit(3)
}

func crashRunner(t *testing.T, dir string, seed uint64, hook *writeHook) *runner {
	st, err := openSQLite(t, filepath.Join(dir, "memory.db"), filepath.Join(dir, "vectors.bin"), hook)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.close)
	r := &runner{ctx: context.Background(), be: sqliteBackend(), st: st, mod: newModel(), set: setupOf(seed),
		emb: &flakyEmbedder{HashEmbedder: local.NewHashEmbedder(dim)}}
	if err := r.open(); err != nil {
		t.Fatal(err)
	}
	return r
}

// crashPoints counts, in this process, the writes of the operations of
// crashKinds in a sequence: the first of each kind with two writes or more
// that no earlier sequence had (perKind), and its write count. An
// ObserveNow that activates buffered observations is of kind "activation".
func crashPoints(t *testing.T, seq crashSeq, perKind map[string]int) map[int]int {
	seed := seq.seed
	hook := &writeHook{}
	r := crashRunner(t, t.TempDir(), seed, hook)
	defer r.mem.Close(context.Background())
	out := map[int]int{}
	for i, o := range seq.ops() {
		hook.mu.Lock()
		hook.armed, hook.n, hook.names = true, 0, nil
		hook.mu.Unlock()
		if err := r.apply(i, o); err != nil {
			t.Fatalf("seed %d step %d %v: %v", seed, i, o, err)
		}
		kind := o.Kind
		if _, ok := crashKinds[kind]; !ok {
			continue
		}
		if kind == "observe" && slices.Contains(hook.names, activationWrite) {
			kind = "activation" // ObserveNow waits for the buffer jobs: its writes are fixed
		}
		if hook.n >= 2 && perKind[kind] < 1 {
			perKind[kind]++
			out[i] = hook.n
			t.Logf("seed %d step %d %v: writes %v", seed, i, o, hook.names)
		}
	}
	return out
}

// Crash points between the writes of every multi-write operation: a child
// process runs a seed on SQLite and is killed right after write w of
// operation k; reopened here, nothing is lost and nothing is under another
// resource; the operation is run again where the API says that finishes
// it, and then every invariant holds.
func TestModelCrash(t *testing.T) {
	perKind := map[string]int{}
	for _, seed := range crashSeeds {
		crashEach(t, crashSeq{seed, 0}, crashPoints(t, crashSeq{seed, 0}, perKind))
	}
	// The activation of buffered observations, ObserveNow's first write:
	// after the activation seed, of the first thread that has chunks.
	for th := range nThreads {
		seq := crashSeq{activationSeed, 1 + th}
		if points := crashPoints(t, seq, perKind); perKind["activation"] > 0 {
			crashEach(t, seq, points)
			return
		}
	}
	t.Fatalf("no thread of seed %d has buffered observations to activate", activationSeed)
}

// crashEach kills a child at every crash point of seq: between the writes
// of each operation points counts.
func crashEach(t *testing.T, seq crashSeq, points map[int]int) {
	for _, k := range slices.Sorted(maps.Keys(points)) {
		for w := 1; w < points[k]; w++ {
			t.Run(fmt.Sprintf("seed%d/op%d/write%d", seq.seed, k, w), func(t *testing.T) { crashAt(t, seq, k, w) })
		}
	}
}

func crashAt(t *testing.T, seq crashSeq, k, w int) {
	dir := t.TempDir()
	seed, o := seq.seed, seq.ops()[k]
	killChild(t, dir, seq, k, w)
	b, err := os.ReadFile(filepath.Join(dir, "model.json"))
	if err != nil {
		t.Fatal(err)
	}
	var snap snapshot
	if err := json.Unmarshal(b, &snap); err != nil {
		t.Fatal(err)
	}
	r := crashRunner(t, dir, seed, nil)
	defer r.mem.Close(context.Background())
	r.mod = snap.model()
	r.emb.down.Store(snap.EmbDown)
	if err := r.nothingLost(o); err != nil {
		t.Fatalf("killed after write %d of step %d %v: %v", w, k, o, err)
	}
	if !crashKinds[o.Kind] {
		r.resync(o)
	} else if err := r.apply(k, o); err != nil {
		t.Fatalf("step %d %v run again after a kill at write %d: %v", k, o, w, err)
	}
	if err := r.check(); err != nil {
		t.Fatalf("after a kill at write %d of step %d %v and the resume: %v", w, k, o, err)
	}
}

// killChild runs the child until it reports the crash point and kills it.
func killChild(t *testing.T, dir string, seq crashSeq, k, w int) {
	t.Helper()
	killtest.At(t, "TestModelCrashChild", func(line string) bool { return strings.HasPrefix(line, "AT write ") },
		crashEnvDir+"="+dir, crashEnvSeed+"="+strconv.FormatUint(seq.seed, 10),
		crashEnvTail+"="+strconv.Itoa(seq.tail), crashEnvOp+"="+strconv.Itoa(k), crashEnvWrite+"="+strconv.Itoa(w))
}

// nothingLost checks the stores right after a kill in operation o: every
// thread and message the model had is there, in its thread and under its
// owner (or, for a move of its thread, under the new one), and every
// vector is under the resource that owns its message.
func (r *runner) nothingLost(o op) error {
	s, err := r.mem.Store()
	if err != nil {
		return err
	}
	touched := threadID(o.Thread)
	for id, m := range r.mod.msgs {
		if o.Kind == "deleteThread" && m.thread == touched {
			continue
		}
		got, err := s.GetMessages(r.ctx, []string{id})
		if err != nil || len(got) != 1 {
			return fmt.Errorf("message %s of %s is lost: %v", id, m.thread, err)
		}
		moved := o.Kind == "move" && m.thread == touched && got[0].ResourceID == resourceID(o.Res)
		if got[0].ThreadID != m.thread || (got[0].ResourceID != m.resource && !moved) {
			return fmt.Errorf("message %s is in %s/%s, was in %s/%s", id, got[0].ResourceID, got[0].ThreadID, m.resource, m.thread)
		}
	}
	for i := range nResources {
		res := resourceID(i)
		hits, err := r.vectors(res)
		if err != nil {
			return err
		}
		for _, h := range hits {
			got, err := s.GetMessages(r.ctx, []string{h.Meta.MessageID})
			if err != nil || len(got) != 1 || got[0].ResourceID != res {
				return fmt.Errorf("vector %s stays under %s: its message is %v (%v)", h.ID, res, got, err)
			}
		}
	}
	return nil
}

// resync takes into the model what a killed operation that is not run
// again left stored: a clone's thread and copies, a turn's messages.
func (r *runner) resync(o op) {
	thread := threadID(o.Thread)
	if o.Kind == "clone" {
		thread = threadID(o.Other)
	}
	s, _ := r.mem.Store()
	th, err := s.GetThread(r.ctx, thread)
	if err != nil {
		return
	}
	if _, ok := r.mod.threads[thread]; !ok {
		md := map[string]any{}
		for k, v := range th.Metadata {
			if !slices.Contains(systemKeys, k) {
				md[k] = v
			}
		}
		r.mod.threads[thread] = &mThread{id: thread, resource: th.ResourceID, meta: jsonRound(md)}
	}
	got, err := r.mem.Recall(r.ctx, allOf(thread, th.ResourceID))
	if err != nil {
		return
	}
	for _, m := range got.Messages {
		if r.mod.msgs[m.ID] == nil {
			r.adopt([]core.Message{m})
		}
	}
}
