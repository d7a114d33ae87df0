package core_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// gate holds model calls while closed: a Commit that returns while the
// gate is closed made no call that waited for a model.
type gate struct {
	mu sync.Mutex
	ch chan struct{}
}

func (g *gate) close() { g.mu.Lock(); g.ch = make(chan struct{}); g.mu.Unlock() }
func (g *gate) open() {
	g.mu.Lock()
	if g.ch != nil {
		close(g.ch)
		g.ch = nil
	}
	g.mu.Unlock()
}

func (g *gate) wait(ctx context.Context) error {
	g.mu.Lock()
	ch := g.ch
	g.mu.Unlock()
	if ch == nil {
		return nil
	}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// gatedReflector is reflectorModel behind a gate.
type gatedReflector struct {
	reflectorModel
	g *gate
}

func (r *gatedReflector) Generate(ctx context.Context, system, prompt string) (string, error) {
	if err := r.g.wait(ctx); err != nil {
		return "", err
	}
	return r.reflectorModel.Generate(ctx, system, prompt)
}

func bufferedConfig(obs, ref core.Model, mt, ot int, buffer, blockAfter float64) core.Config {
	cfg := observationConfig(obs, ref, mt, ot)
	cfg.ObservationalMemory.Observation.BufferTokens = buffer
	cfg.ObservationalMemory.Observation.BlockAfter = blockAfter
	return cfg
}

// requireOnce fails t unless every tag reached a successful call exactly once.
func (o *observerModel) requireOnce(t *testing.T) {
	t.Helper()
	for tag, n := range o.observed() {
		if n != 1 {
			t.Fatalf("%s sent to the observer %d times", tag, n)
		}
	}
}

// pendingTokens sums the stored tokens of the thread's unobserved messages.
func pendingTokens(t *testing.T, s store.Store, rec store.ObservationRecord, thread string) (tokens, unobserved int) {
	t.Helper()
	page, err := s.ListMessages(ctx, store.MessageQuery{ThreadID: thread, PerPage: 10000})
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range page.Messages {
		if !rec.Observed(msg.CreatedAt, msg.ID) {
			tokens += msg.Tokens
			unobserved++
		}
	}
	return tokens, unobserved
}

func record(t *testing.T, m *core.Memory, thread string) store.ObservationRecord {
	t.Helper()
	rec, err := m.Observations(ctx, thread, "r", nil)
	if err != nil && !errors.Is(err, core.ErrThreadNotFound) {
		t.Fatal(err)
	}
	return rec
}

// Mastra: the 'Buffered Observations' cases of stores/_test-utils/src/
// domains/memory/observational-memory.ts, end to end (the mid-step case is
// TestStepActivatesBufferedObservations): chunks are made in the background
// every BufferTokens; the Commit that crosses MessageTokens activates them
// while every observer call is held, so it made none; each message reaches
// the observer once.
func TestBufferedObservationActivatesWithoutObserverCall(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		g := &gate{}
		obs := &observerModel{hook: func(ctx context.Context, _ int64) error { return g.wait(ctx) }}
		m := newMem(t, s, bufferedConfig(obs, &reflectorModel{}, 500, 100000, 0.2, 3))
		activations, buffered := 0, 0
		for i := 0; i < 40; i++ {
			before := record(t, m, "t")
			g.close()
			observedTurn(t, m, "t", "r", i) // returns with every observer call held
			after := record(t, m, "t")
			if after.Observations != before.Observations {
				activations++
				if pending, _ := pendingTokens(t, s, after, "t"); pending >= 500 {
					t.Fatalf("turn %d: %d tokens unobserved after activation", i, pending)
				}
			}
			g.open()
			core.WaitBackground(m)
			if n := len(record(t, m, "t").Buffer.Chunks); n > len(after.Buffer.Chunks) {
				buffered++
			}
		}
		if activations < 2 || buffered < 5 {
			t.Fatalf("%d activations, %d buffered chunks: the turns did not exercise buffering", activations, buffered)
		}
		obs.requireOnce(t)
	})
}

// Mastra: blockAfter (observational-memory.ts: "blockAfter exceeded ...
// falling through to sync"): with buffering on, a Commit below BlockAfter
// never observes synchronously, even past MessageTokens with nothing
// buffered; the first Commit past it observes everything before returning.
func TestBufferedObservationBlocksOnlyPastBlockAfter(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		var failing atomic.Bool
		failing.Store(true)
		obs := &observerModel{hook: func(context.Context, int64) error {
			if failing.Load() {
				return errors.New("observer down")
			}
			return nil
		}}
		m := newMem(t, s, bufferedConfig(obs, &reflectorModel{}, 500, 100000, 0.2, 1.2))
		i := 0
		for ; ; i++ {
			rec := record(t, m, "t")
			pending, _ := pendingTokens(t, s, rec, "t")
			if pending+60 >= 600 { // the next turn may pass BlockAfter (600)
				if pending < 500 {
					t.Fatalf("stopped below the threshold at %d tokens", pending)
				}
				break
			}
			observedTurn(t, m, "t", "r", i)
			core.WaitBackground(m)
			if rec := record(t, m, "t"); rec.Observations != "" {
				t.Fatalf("turn %d observed below blockAfter", i)
			}
		}
		failing.Store(false)
		for ; ; i++ {
			observedTurn(t, m, "t", "r", i)
			rec := record(t, m, "t")
			if rec.Observations != "" { // observed inside Commit
				if pending, n := pendingTokens(t, s, rec, "t"); n != 0 {
					t.Fatalf("turn %d: %d messages (%d tokens) left unobserved by the blocking observation", i, n, pending)
				}
				break
			}
			core.WaitBackground(m)
			if pending, _ := pendingTokens(t, s, record(t, m, "t"), "t"); pending >= 600 {
				t.Fatalf("turn %d passed blockAfter without observing", i)
			}
		}
	})
}

// Mastra: reflection.bufferActivation (packages/memory/src/processors/
// observational-memory/reflector-runner.ts: "ASYNC BUFFERING: Trigger
// background reflection at bufferActivation ratio" and
// tryActivateBufferedReflection), with observation buffered or not (then
// observation stays synchronous at the threshold): the reflection starts in
// the background at half the threshold and is activated, with every
// reflector call held, by the Commit that passes it.
func TestBufferedReflectionActivatesWithoutReflectorCall(t *testing.T) {
	for _, bufferTokens := range []float64{0.2, 0} {
		t.Run(fmt.Sprint("bufferTokens=", bufferTokens), func(t *testing.T) {
			eachBackend(t, func(t *testing.T, s store.Store) {
				g := &gate{}
				obs := &observerModel{}
				cfg := bufferedConfig(obs, &gatedReflector{g: g}, 500, 400, bufferTokens, 0)
				cfg.ObservationalMemory.Reflection.BufferActivation = 0.5
				cfg.ObservationalMemory.Reflection.BlockAfter = 5
				if bufferTokens != 0 {
					cfg.ObservationalMemory.Observation.BlockAfter = 3
				}
				m := newMem(t, s, cfg)
				activated := 0
				for i := 0; i < 80 && activated < 2; i++ {
					before := record(t, m, "t")
					g.close()
					observedTurn(t, m, "t", "r", i) // returns with every reflector call held
					after := record(t, m, "t")
					if pending, _ := pendingTokens(t, s, after, "t"); bufferTokens == 0 && pending > 500 {
						t.Fatalf("turn %d: %d tokens unobserved past the threshold", i, pending)
					}
					if after.Generation > before.Generation {
						activated++
						if before.Buffer.Reflection == nil || after.Buffer.Reflection != nil {
							t.Fatalf("turn %d: generation %d from buffered reflection %v, left %v", i, after.Generation, before.Buffer.Reflection, after.Buffer.Reflection)
						}
					}
					g.open()
					core.WaitBackground(m)
				}
				if activated < 2 {
					t.Fatalf("%d buffered reflections activated", activated)
				}
				gens, err := s.(store.Observations).ListObservationGenerations(ctx, "thread:t")
				if err != nil || len(gens) < 2 {
					t.Fatalf("archived generations: %d, %v", len(gens), err)
				}
				obs.requireOnce(t)
			})
		})
	}
}

// Every message reaches the observer exactly once across 200 turns that
// cross the threshold many times, with background buffering racing the
// turns, activation, blocking observation and buffered reflection; at the
// end every message is observed.
func TestBufferedObservationExactlyOnce(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		// A slow observer: in the first half the turns wait for the
		// background now and then (buffering keeps up, chunks are
		// activated); in the second they outrun it (Commits pass
		// BlockAfter and observe synchronously).
		obs, ref := &observerModel{delay: 40 * time.Millisecond}, &reflectorModel{}
		cfg := bufferedConfig(obs, ref, 400, 600, 0.25, 1.2)
		m := newMem(t, s, cfg)
		for i := 0; i < 200; i++ {
			observedTurn(t, m, "t", "r", i)
			if i < 100 && i%2 == 0 || i%50 == 49 {
				core.WaitBackground(m)
			}
		}
		core.WaitBackground(m)
		rec, err := m.ObserveNow(ctx, "t", "r", nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, n := pendingTokens(t, s, rec, "t"); n != 0 {
			t.Fatalf("%d messages unobserved after ObserveNow", n)
		}
		seen := obs.observed()
		for i := 0; i < 200; i++ {
			for _, tag := range []string{fmt.Sprintf("m%du", i), fmt.Sprintf("m%da", i)} {
				if seen[tag] != 1 {
					t.Fatalf("%s sent to the observer %d times", tag, seen[tag])
				}
			}
		}
		if rec.Generation < 2 || ref.calls.Load() < 2 {
			t.Fatalf("generation %d after %d reflector calls: reflection was not exercised", rec.Generation, ref.calls.Load())
		}
	})
}

// Bad buffering settings are ErrInvalidConfig naming the field.
func TestBufferedObservationConfig(t *testing.T) {
	obs := &observerModel{}
	for i, o := range []core.ObservationConfig{
		{BufferTokens: -0.2},
		{BufferTokens: 40000},                    // not under messageTokens
		{BufferTokens: 0.2, BufferActivation: 5}, // neither ratio nor tokens
		{BufferTokens: 0.2, BlockAfter: 0.5},     // under the threshold
		{BlockAfter: 1.5},                        // without buffering
	} {
		cfg := core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{Model: obs, Observation: o}}
		if _, err := core.New(core.Options{Store: memstore.New(), Config: cfg}); !errors.Is(err, core.ErrInvalidConfig) {
			t.Errorf("case %d (%+v): err = %v, want ErrInvalidConfig", i, o, err)
		}
	}
	cfg := core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{Model: obs, Scope: core.ScopeResource,
		Observation: core.ObservationConfig{BufferTokens: 0.2}}}
	if _, err := core.New(core.Options{Store: memstore.New(), Config: cfg}); !errors.Is(err, core.ErrInvalidConfig) {
		t.Errorf("resource scope with buffering: err = %v, want ErrInvalidConfig", err)
	}
	cfg = core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{Model: obs,
		Reflection: core.ReflectionConfig{BufferActivation: 2}}}
	if _, err := core.New(core.Options{Store: memstore.New(), Config: cfg}); !errors.Is(err, core.ErrInvalidConfig) {
		t.Errorf("reflection.bufferActivation 2: err = %v, want ErrInvalidConfig", err)
	}
}

// A clear while a buffer call is in flight wins: the chunk made from the
// cleared observations is not stored. (A chunk made from a record with
// nothing observed yet is the same before and after a clear, and is kept.)
func TestBufferedChunkLosesToClear(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		g := &gate{}
		entered := make(chan struct{}, 1)
		obs := &observerModel{hook: func(ctx context.Context, _ int64) error {
			select {
			case entered <- struct{}{}:
			default:
			}
			return g.wait(ctx)
		}}
		m := newMem(t, s, bufferedConfig(obs, &reflectorModel{}, 500, 100000, 0.2, 3))
		observedTurn(t, m, "t", "r", 0)
		core.WaitBackground(m)
		if _, err := m.ObserveNow(ctx, "t", "r", nil); err != nil {
			t.Fatal(err)
		}
		<-entered // ObserveNow's call
		g.close()
		for i := 1; i <= 3; i++ { // past BufferTokens (100), far below BlockAfter (1500)
			observedTurn(t, m, "t", "r", i)
		}
		<-entered // a buffer call is held
		if _, err := m.ClearObservations(ctx, "t", "r", nil); err != nil {
			t.Fatal(err)
		}
		g.open()
		core.WaitBackground(m)
		// A chunk made before the clear left out m0, observed then; one
		// buffered after it (a coalesced request) starts from m0 again.
		for _, c := range record(t, m, "t").Buffer.Chunks {
			if !strings.Contains(c.Observations, "saw m0u") {
				t.Fatalf("a chunk made before the clear was stored: %q", c.Observations)
			}
		}
	})
}

// Background cycles and buffering together, on more threads than there
// are workers, turns racing a slow observer: every message of every thread
// is observed, each sent to the observer once.
func TestBufferedObservationInBackground(t *testing.T) {
	s := memstore.New()
	obs := &observerModel{delay: 30 * time.Millisecond}
	cfg := bufferedConfig(obs, &reflectorModel{}, 400, 100000, 0.25, 1.2)
	cfg.ObservationalMemory.Background = true
	cfg.ObservationalMemory.Timeout = 5 * time.Second
	m := newMem(t, s, cfg)
	threads := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	var wg sync.WaitGroup
	for k, th := range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 40; i++ {
				observedTurn(t, m, th, "r", k*1000+i)
			}
		}()
	}
	wg.Wait()
	core.WaitBackground(m)
	for _, th := range threads {
		rec, err := m.ObserveNow(ctx, th, "r", nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, n := pendingTokens(t, s, rec, th); n != 0 {
			t.Fatalf("thread %s: %d messages unobserved", th, n)
		}
	}
	obs.requireOnce(t)
	if n := len(obs.observed()); n != len(threads)*80 {
		t.Fatalf("%d messages observed, want %d", n, len(threads)*80)
	}
}
