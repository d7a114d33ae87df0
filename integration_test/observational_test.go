package integration_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/store/sqlite"
	"github.com/agentmem/agentmem/internal/testenv"
)

// Observational memory end to end on every store: memstore, SQLite and
// PostgreSQL (required under scripts/test), with scripted observer and
// reflector models and a tokenizer that counts bytes.

type omBackend struct {
	name string
	open func(t *testing.T) store.Store
}

func omBackends() []omBackend {
	return []omBackend{
		{"memstore", func(t *testing.T) store.Store { return memstore.New() }},
		{"sqlite", func(t *testing.T) store.Store {
			s, err := sqlite.Open(bg, filepath.Join(t.TempDir(), "om.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			return s
		}},
		{"postgres", func(t *testing.T) store.Store { return openPG(t, nil) }},
	}
}

// omTagRE finds the tags ("m12u", "m12a") every test message carries.
var omTagRE = regexp.MustCompile(`\bm\d+[ua]\b`)

// omObserver writes one observation line per message tag it is sent and
// records the tags of every call that answered; hook injects failures.
type omObserver struct {
	mu      sync.Mutex
	calls   atomic.Int64
	batches [][]string
	hook    func(ctx context.Context, call int64) error
}

func (o *omObserver) Generate(ctx context.Context, system, prompt string) (string, error) {
	n := o.calls.Add(1)
	if o.hook != nil {
		if err := o.hook(ctx, n); err != nil {
			return "", err
		}
	}
	_, msgs, ok := strings.Cut(prompt, "New messages to observe:")
	if !ok || !strings.Contains(system, "observer") {
		return "", errors.New("not an observer prompt")
	}
	tags := omTagRE.FindAllString(msgs, -1)
	o.mu.Lock()
	o.batches = append(o.batches, tags)
	o.mu.Unlock()
	// One line per call: "- [2026-10-30] (low) saw m1u m1a m2u".
	return "- [2026-10-30] (low) saw " + strings.Join(tags, " "), nil
}

func (o *omObserver) observed() map[string]int {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := map[string]int{}
	for _, b := range o.batches {
		for _, tag := range b {
			out[tag]++
		}
	}
	return out
}

// omReflector condenses everything into one line.
type omReflector struct{ calls atomic.Int64 }

func (r *omReflector) Generate(ctx context.Context, system, prompt string) (string, error) {
	if !strings.Contains(system, "reflector") {
		return "", errors.New("not a reflector prompt")
	}
	n := r.calls.Add(1)
	return fmt.Sprintf("- [2026-10-30] (high) reflection %d condensed %d lines", n, strings.Count(prompt, "\n- ")), nil
}

func omMemory(t *testing.T, s store.Store, cfg core.Config) *core.Memory {
	t.Helper()
	m, err := core.New(core.Options{Store: s, Config: cfg, Tokenizer: testenv.ByteTokenizer{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close(context.Background()) })
	return m
}

func omCfg(obs, ref core.Model, mt, ot int) core.Config {
	return core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{ObserverModel: obs, ReflectorModel: ref,
		Observation: core.ObservationConfig{MessageTokens: mt}, Reflection: core.ReflectionConfig{ObservationTokens: ot},
		Timeout: 200 * time.Millisecond}}
}

var omTopics = []string{"pasta", "soup", "salad", "curry", "bread", "rice", "tacos", "stew"}

// omTurn runs turn i of a thread and returns it.
func omTurn(t *testing.T, m *core.Memory, thread, res string, i int) *core.Turn {
	t.Helper()
	topic := omTopics[i%len(omTopics)]
	turn, err := m.Begin(bg, core.TurnRequest{ThreadID: thread, ResourceID: res, System: []string{"You are a cooking assistant."},
		Input: []core.Message{core.NewMessage(core.RoleUser, fmt.Sprintf("m%du: what about %s for dinner number %d?", i, topic, i))}})
	if err != nil {
		t.Fatalf("Begin %d: %v", i, err)
	}
	if err := turn.Commit(bg, []core.Message{core.NewMessage(core.RoleAssistant, fmt.Sprintf("m%da: %s works well, about %d minutes.", i, topic, 20+i%40))}); err != nil {
		t.Fatalf("Commit %d: %v", i, err)
	}
	return turn
}

// checkExactlyOnce: every stored message of the threads was sent to exactly
// one successful observer call if the record says it is observed, and to
// none if not; no tag was sent twice.
func checkExactlyOnce(t *testing.T, s *store.Checked, obs *omObserver, key string, threads ...string) (observed, unobserved int) {
	t.Helper()
	rec, err := s.GetObservations(bg, key)
	if err != nil {
		t.Fatal(err)
	}
	seen := obs.observed()
	total := 0
	for _, th := range threads {
		page, err := s.ListMessages(bg, store.MessageQuery{ThreadID: th, PerPage: store.PerPageAll})
		if err != nil {
			t.Fatal(err)
		}
		for _, msg := range page.Messages {
			tag := omTagRE.FindString(msg.Text())
			want := 0
			if rec.Observed(msg.CreatedAt, msg.ID) {
				want = 1
				observed++
			} else {
				unobserved++
			}
			if seen[tag] != want {
				t.Fatalf("%s (%s) was sent to the observer %d times, want %d", tag, th, seen[tag], want)
			}
			total++
		}
	}
	if len(seen) != observed {
		t.Fatalf("observer saw %d tags, %d messages are observed", len(seen), observed)
	}
	return observed, unobserved
}

// 300 turns with small thresholds: the prompt stays bounded by
// MessageTokens + ObservationTokens + the turn (plus the fixed frame of
// instructions), observations accumulate, reflections create generations that
// are kept, and every message is observed exactly once.
func TestObservationalLongConversation(t *testing.T) {
	for _, b := range omBackends() {
		t.Run(b.name, func(t *testing.T) {
			s := store.Check(b.open(t))
			obs, ref := &omObserver{}, &omReflector{}
			const mt, ot = 400, 300
			m := omMemory(t, s, omCfg(obs, ref, mt, ot))
			frame, maxPrompt, stable := -1, 0, 0
			var prevSystem []string
			prevVersion := int64(-1)
			for i := 0; i < 300; i++ {
				rec, err := s.GetObservations(bg, "thread:t")
				if err != nil {
					t.Fatal(err)
				}
				if rec.ObservationTokens > ot {
					t.Fatalf("turn %d: %d observation tokens stored, over %d", i, rec.ObservationTokens, ot)
				}
				turn := omTurn(t, m, "t", "r", i)
				if err := turn.ObservationErr(); err != nil {
					t.Fatalf("turn %d: %v", i, err)
				}
				prompt := turn.Messages()
				// Turns that add no observation keep the system prefix byte-identical.
				sys := systemOf(prompt)
				if rec.Version == prevVersion {
					if strings.Join(sys, "\x00") != strings.Join(prevSystem, "\x00") {
						t.Fatalf("turn %d: system prefix changed without a new observation", i)
					}
					stable++
				}
				prevSystem, prevVersion = sys, rec.Version
				var history, input, system int
				for _, msg := range prompt {
					switch msg.Source {
					case core.SourceMemory:
						history += msg.Tokens
					case core.SourceInput:
						input += msg.Tokens
					case core.SourceSystem:
						system += msg.Tokens
					}
				}
				if history > mt {
					t.Fatalf("turn %d: %d tokens of unobserved history, over %d", i, history, mt)
				}
				if rec.ObservationTokens > 0 && frame < 0 {
					// Instructions, preamble, fence and hint: fixed per prompt.
					frame = system - rec.ObservationTokens
				}
				total := budget.PromptTokens(prompt)
				if frame >= 0 && total > mt+ot+input+frame+64 {
					t.Fatalf("turn %d: prompt %d tokens > %d + %d + %d (turn) + %d (frame)", i, total, mt, ot, input, frame)
				}
				maxPrompt = max(maxPrompt, total)
			}
			rec, _ := s.GetObservations(bg, "thread:t")
			gens, err := s.ListObservationGenerations(bg, "thread:t")
			if err != nil {
				t.Fatal(err)
			}
			// Observations accumulate: several observations per generation.
			if ref.calls.Load() < 5 || obs.calls.Load() < 2*ref.calls.Load() || rec.Generation != int(ref.calls.Load()) || len(gens) != rec.Generation {
				t.Fatalf("reflections %d, generation %d, archived %d", ref.calls.Load(), rec.Generation, len(gens))
			}
			for i, g := range gens {
				if g.Generation != i || g.Observations == "" {
					t.Fatalf("archived generation %d: %+v", i, g)
				}
			}
			observed, unobserved := checkExactlyOnce(t, s, obs, "thread:t", "t")
			if observed+unobserved != 600 || unobserved > 10 {
				t.Fatalf("%d observed, %d unobserved of 600", observed, unobserved)
			}
			if stable < 200 {
				t.Fatalf("only %d turns with an unchanged record", stable)
			}
			t.Logf("%d observer calls, %d reflections, largest prompt %d tokens (frame %d), %d turns with a stable prefix",
				obs.calls.Load(), ref.calls.Load(), maxPrompt, frame, stable)
		})
	}
}

// The observer fails on one turn and times out on another: both turns
// commit, the messages stay unobserved and are observed, once, later.
func TestObservationalFailures(t *testing.T) {
	for _, b := range omBackends() {
		t.Run(b.name, func(t *testing.T) {
			s := store.Check(b.open(t))
			obs := &omObserver{hook: func(ctx context.Context, call int64) error {
				switch call {
				case 2:
					return errors.New("model overloaded")
				case 4:
					<-ctx.Done() // a hung model: the timeout ends it
					return ctx.Err()
				}
				return nil
			}}
			m := omMemory(t, s, omCfg(obs, &omReflector{}, 300, 100000))
			var failed []int
			for i := 0; i < 40; i++ {
				turn := omTurn(t, m, "t", "r", i) // Commit returned nil
				if err := turn.ObservationErr(); err != nil {
					if !errors.Is(err, core.ErrObservation) {
						t.Fatalf("turn %d: %v", i, err)
					}
					failed = append(failed, i)
					// The turn after a failure sees the unobserved messages raw.
					next, err := m.Begin(bg, core.TurnRequest{ThreadID: "t", ResourceID: "r"})
					if err != nil {
						t.Fatal(err)
					}
					if !strings.Contains(next.Messages()[len(next.Messages())-1].Text(), fmt.Sprintf("m%da", i)) {
						t.Fatalf("turn %d's answer missing from the next prompt", i)
					}
				}
			}
			if len(failed) != 2 {
				t.Fatalf("failed turns %v, want 2", failed)
			}
			seen := obs.observed()
			for _, i := range failed {
				if seen[fmt.Sprintf("m%du", i)] != 1 || seen[fmt.Sprintf("m%da", i)] != 1 {
					t.Fatalf("messages of failed turn %d not observed later", i)
				}
			}
			checkExactlyOnce(t, s, obs, "thread:t", "t")
		})
	}
}

// Resource scope: two threads of one resource share one record; another
// resource sees none of it.
func TestObservationalResourceScope(t *testing.T) {
	for _, b := range omBackends() {
		t.Run(b.name, func(t *testing.T) {
			s := store.Check(b.open(t))
			obs := &omObserver{}
			cfg := omCfg(obs, &omReflector{}, 300, 100000)
			cfg.ObservationalMemory.Scope = core.ScopeResource
			m := omMemory(t, s, cfg)
			for i := 0; i < 6; i++ {
				omTurn(t, m, "A", "r1", i)
			}
			recA, err := m.Observations(bg, "A", "r1", nil)
			if err != nil || recA.Version == 0 || recA.Key != "resource:r1" {
				t.Fatalf("record after thread A: %+v %v", recA, err)
			}
			// Thread B of the same resource starts with A's observations and
			// sees A's unobserved messages as another conversation.
			turn := omTurn(t, m, "B", "r1", 100)
			sys := strings.Join(systemOf(turn.Messages()), "\n")
			if !strings.Contains(sys, "m0u") {
				t.Fatalf("thread B does not see A's observations:\n%s", sys)
			}
			for _, msg := range turn.Messages() {
				if msg.Source == core.SourceMemory && msg.ThreadID != "B" {
					t.Fatalf("history of B holds %s of thread %s", msg.ID, msg.ThreadID)
				}
			}
			for i := 101; i < 106; i++ {
				omTurn(t, m, "B", "r1", i)
			}
			recB, _ := m.Observations(bg, "B", "r1", nil)
			if recB.Version <= recA.Version || !strings.Contains(recB.Observations, "m101u") || !strings.Contains(recB.Observations, "m0u") {
				t.Fatalf("shared record did not grow from both threads: %+v", recB)
			}
			// Another resource sees nothing.
			other := omTurn(t, m, "C", "r2", 200)
			for _, text := range systemOf(other.Messages()) {
				if strings.Contains(text, "saw m") || strings.Contains(text, "m10") {
					t.Fatalf("resource r2 sees r1's memory:\n%s", text)
				}
			}
			if rec, _ := m.Observations(bg, "C", "r2", nil); rec.Version != 0 {
				t.Fatalf("r2 has a record: %+v", rec)
			}
			checkExactlyOnce(t, s, obs, "resource:r1", "A", "B")
		})
	}
}

func systemOf(msgs []core.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role == core.RoleSystem {
			out = append(out, m.Text())
		}
	}
	return out
}
