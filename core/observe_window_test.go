package core_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/internal/testenv"
)

// steppedClock advances by step on every reading.
type steppedClock struct {
	mu   sync.Mutex
	at   time.Time
	step time.Duration
}

// skip moves the clock by d at once (an idle conversation).
func (c *steppedClock) skip(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at = c.at.Add(d)
}

func (c *steppedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at = c.at.Add(c.step)
	return c.at
}

// As turns go on for longer than the lookback window, the record keeps
// exactly the observed ids created within the window before its cursor
// (the window slides without rereading what it keeps, and passes them all
// after a pause), every message is
// observed once, and a message created before the cursor but saved after
// it is still observed. Thread and resource scope, buffered and not, on
// every backend.
func TestObservationalWindowSlides(t *testing.T) {
	for _, scope := range []core.Scope{core.ScopeThread, core.ScopeResource} {
		for _, buffered := range []bool{false, true} {
			if buffered && scope == core.ScopeResource {
				continue // buffering is thread scope only
			}
			t.Run(fmt.Sprintf("%s/buffered=%v", scope, buffered), func(t *testing.T) {
				eachBackend(t, func(t *testing.T, s store.Store) { testWindowSlides(t, s, scope, buffered) })
			})
		}
	}
}

func testWindowSlides(t *testing.T, s store.Store, scope core.Scope, buffered bool) {
	obs := &observerModel{}
	cfg := observationConfig(obs, &reflectorModel{}, 120, 100000)
	if buffered {
		cfg = bufferedConfig(obs, &reflectorModel{}, 120, 100000, 0.25, 0)
	}
	cfg.ObservationalMemory.Scope = scope
	clock := &steppedClock{at: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC), step: 40 * time.Second}
	m, err := core.New(core.Options{Store: s, Config: cfg, Tokenizer: testenv.ByteTokenizer{}, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	const turns = 60 // 60 turns of two messages, 40 s per stamp: 95 minutes with a pause
	var slow *core.Turn
	for i := 0; i < turns; i++ {
		if i == 30 { // a turn that commits after later turns were observed
			if slow, err = m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r",
				Input: []core.Message{core.NewMessage(core.RoleUser, "m900u: slow question")}}); err != nil {
				t.Fatal(err)
			}
		}
		if i == 34 {
			if err := slow.Commit(ctx, []core.Message{core.NewMessage(core.RoleAssistant, "m900a: slow answer")}); err != nil {
				t.Fatal(err)
			}
		}
		if i == 45 { // the window passes every observed id at once
			clock.skip(15 * time.Minute)
		}
		observedTurn(t, m, "t", "r", i)
		core.WaitBackground(m)
	}
	if _, err := m.ObserveNow(ctx, "t", "r", nil); err != nil {
		t.Fatal(err)
	}
	key := store.ObservationKey(scope, "t", "r")
	cs := store.Check(s)
	rec, err := cs.GetObservations(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	page, err := cs.ListMessages(ctx, store.MessageQuery{ThreadID: "t", PerPage: store.PerPageAll})
	if err != nil {
		t.Fatal(err)
	}
	var window []string
	for _, msg := range page.Messages {
		if !msg.CreatedAt.Before(rec.LastObservedAt.Add(-store.ObservationLookback)) {
			window = append(window, msg.ID)
		}
	}
	got := slices.Sorted(slices.Values(rec.ObservedMessageIDs))
	if slices.Sort(window); !slices.Equal(got, window) {
		t.Fatalf("%d observed ids, want the window's %d:\n%v\n%v", len(got), len(window), got, window)
	}
	tags := obs.observed()
	for _, msg := range page.Messages {
		tag := tagRE.FindString(msg.Text())
		if tags[tag] != 1 {
			t.Fatalf("%s sent to the observer %d times", tag, tags[tag])
		}
	}
	if len(page.Messages) != 2*turns+2 {
		t.Fatalf("%d messages stored, want %d", len(page.Messages), 2*turns+2)
	}
}
