package modeltest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/vector/local"
)

// The flags (or environment variables) of a run:
//
//	-seed N / AGENTMEM_MODEL_SEED          replay one seed
//	-ops 3,5,17 / AGENTMEM_MODEL_OPS       only these operations of it (a shrunk sequence)
//	-steps N / AGENTMEM_MODEL_STEPS        operations per seed
//	-duration D / AGENTMEM_MODEL_DURATION  fresh random seeds for D
var (
	seedFlag     = flag.String("seed", os.Getenv("AGENTMEM_MODEL_SEED"), "replay this seed")
	opsFlag      = flag.String("ops", os.Getenv("AGENTMEM_MODEL_OPS"), "run only these operation indexes of the seed")
	stepsFlag    = flag.String("steps", os.Getenv("AGENTMEM_MODEL_STEPS"), "operations per seed")
	durationFlag = flag.String("duration", os.Getenv("AGENTMEM_MODEL_DURATION"), "run fresh seeds for this long")
)

// ciSeeds are the seeds `go test` runs, within about two minutes under
// -race: a backend runs the first backend.ciSeeds of them. Each seed picks
// its setup (setupOf): 4 resource-scoped observational memory, where moves
// and clones cross it; 3 none, where prompts are checked against the
// history budget, with working memory in thread scope; 1 thread-scoped
// observational memory buffering ahead and activating; then 2, 8 and 10
// resource scope, 7 thread scope, the others none.
var ciSeeds = []uint64{4, 3, 1, 2, 5, 6, 7, 8, 9, 10, 11, 12}

const ciSteps = 60

func intFlag(t *testing.T, s string, def int) int {
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("bad number %q: %v", s, err)
	}
	return n
}

// TestModel runs the seeds on every backend: the fixed set, one seed given,
// or fresh seeds for a duration.
func TestModel(t *testing.T) {
	steps := intFlag(t, *stepsFlag, ciSteps)
	for _, be := range backends(t) {
		t.Run(be.name, func(t *testing.T) {
			tl := &tally{}
			defer func() { t.Log(tl) }()
			switch {
			case *seedFlag != "":
				seed, err := strconv.ParseUint(*seedFlag, 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				runSeed(t, be, seed, steps, selected(t, genOps(seed, steps)), tl)
			case *durationFlag != "":
				d, err := time.ParseDuration(*durationFlag)
				if err != nil {
					t.Fatal(err)
				}
				for end := time.Now().Add(d); time.Now().Before(end) && !t.Failed(); {
					seed := uint64(time.Now().UnixNano())
					runSeed(t, be, seed, steps, numbered(genOps(seed, steps)), tl)
				}
			default:
				for _, seed := range ciSeeds[:be.ciSeeds] {
					runSeed(t, be, seed, steps, numbered(genOps(seed, steps)), tl)
				}
			}
		})
	}
}

func numbered(ops []op) []indexed {
	all := make([]indexed, len(ops))
	for i, o := range ops {
		all[i] = indexed{i, o}
	}
	return all
}

// selected keeps the operations -ops names, by index (with their indexes
// kept, so the replay is the shrunk sequence).
func selected(t *testing.T, ops []op) []indexed {
	all := numbered(ops)
	if *opsFlag == "" {
		return all
	}
	var out []indexed
	for _, s := range strings.Split(*opsFlag, ",") {
		i, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || i < 0 || i >= len(ops) {
			t.Fatalf("bad -ops index %q", s)
		}
		out = append(out, all[i])
	}
	return out
}

// indexed is an operation with its index in its seed's sequence: ids it
// makes derive from the index, so a shrunk sequence replays alike.
type indexed struct {
	i  int
	op op
}

func runSeed(t *testing.T, be backend, seed uint64, steps int, seq []indexed, tl *tally) {
	t.Helper()
	at, err := execute(t, be, seed, seq, tl)
	if err == nil {
		return
	}
	t.Errorf("seed %d (%s, %d steps): step %d %v: %v", seed, be.name, steps, seq[at].i, seq[at].op, err)
	if _, again := execute(t, be, seed, seq, nil); again == nil {
		t.Errorf("the sequence passed when run again: the failure depends on timing (background work), no shrinking")
		return
	}
	short := shrink(t, be, seed, seq)
	var idx, lines []string
	for _, o := range short {
		idx = append(idx, strconv.Itoa(o.i))
		lines = append(lines, fmt.Sprintf("  %d: %v", o.i, o.op))
	}
	_, err = execute(t, be, seed, short, nil)
	// The backend's name is quoted: "+" in it is no regexp of -run.
	t.Errorf("shrunk to %d operations, failing with: %v\n%s\nreplay: go test ./core/modeltest -run 'TestModel$/^%s$' -seed %d -steps %d -ops %s",
		len(short), err, strings.Join(lines, "\n"), regexp.QuoteMeta(be.name), seed, steps, strings.Join(idx, ","))
}

// execute runs a sequence on fresh stores, checking every invariant after
// each operation; it returns the position of the first violation. A tally
// given counts what the run covered.
func execute(t *testing.T, be backend, seed uint64, seq []indexed, tl *tally) (int, error) {
	st, err := be.fresh(t)
	if err != nil {
		t.Fatalf("%s: %v", be.name, err)
	}
	defer st.close()
	r := &runner{ctx: context.Background(), be: be, st: st, mod: newModel(), set: setupOf(seed),
		emb: &flakyEmbedder{HashEmbedder: local.NewHashEmbedder(dim)}, tally: tl}
	if tl != nil {
		tl.seeds++
		tl.ops += len(seq)
	}
	if err := r.open(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.mem.Close(context.Background()) }()
	for k, o := range seq {
		if err := r.apply(o.i, o.op); err != nil {
			return k, err
		}
		if err := r.check(); err != nil {
			return k, fmt.Errorf("after it: %w", err)
		}
	}
	return 0, nil
}

// shrink delta-debugs a failing sequence: it drops halves, then quarters,
// down to single operations, as long as the sequence still fails.
func shrink(t *testing.T, be backend, seed uint64, seq []indexed) []indexed {
	fails := func(s []indexed) bool { _, err := execute(t, be, seed, s, nil); return err != nil }
	if at, _ := execute(t, be, seed, seq, nil); at+1 < len(seq) {
		seq = seq[:at+1] // nothing after the failure matters
	}
	for chunk := len(seq) / 2; chunk >= 1; {
		dropped := false
		for start := 0; start < len(seq); start += chunk {
			cand := slices.Concat(seq[:start], seq[min(start+chunk, len(seq)):])
			if len(cand) > 0 && fails(cand) {
				seq, dropped = cand, true
				start -= chunk
			}
		}
		if !dropped {
			chunk /= 2
		}
	}
	return seq
}

// tally counts what a run covered, for its log: seeds and operations, and
// the crossing of MoveThread and resource-scoped observational memory (a
// thread with messages moved to another resource), and how many of those
// moved a message older than the new owner's observation cursor, which the
// new owner's record would count as observed by time.
type tally struct {
	seeds, ops, omMoves, olderMoves int
}

func (tl *tally) String() string {
	return fmt.Sprintf("%d seeds, %d operations; %d moves under resource-scoped observational memory, %d of them with a message older than the new owner's observation cursor",
		tl.seeds, tl.ops, tl.omMoves, tl.olderMoves)
}
