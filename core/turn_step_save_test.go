package core_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// lostReplyStore stores the messages of an armed SaveMessages and then
// reports a failure, as a connection lost before the commit's reply does:
// the caller cannot tell that the write happened.
type lostReplyStore struct {
	store.Store
	armed atomic.Bool
}

func (s *lostReplyStore) SaveMessages(ctx context.Context, msgs []message.Message) ([]message.Message, error) {
	saved, err := s.Store.SaveMessages(ctx, msgs)
	if err == nil && s.armed.Swap(false) {
		return nil, errors.New("connection lost before the reply")
	}
	return saved, err
}

// loopTurn begins a turn on thread "t" whose input has no client id.
func loopTurn(t *testing.T, m *core.Memory, cfg *core.Config) *core.Turn {
	t.Helper()
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Config: cfg, Input: []core.Message{core.NewMessage(core.RoleUser, "go")}})
	if err != nil {
		t.Fatal(err)
	}
	return turn
}

func step(t *testing.T, turn *core.Turn, produced []core.Message) {
	t.Helper()
	if _, err := turn.Step(ctx, produced); err != nil {
		t.Fatal(err)
	}
}

// A save whose reply is lost is done again under the same ids: a step's
// (logged, saved by the next step) and Commit's (returned, Commit called
// again) leave every message of the turn stored once.
func TestStepSaveRetriedWithoutCopies(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		ls := &lostReplyStore{Store: s}
		m := newMem(t, ls, core.Config{LastMessages: core.AllMessages})
		turn := loopTurn(t, m, nil)
		step(t, turn, loopProduced(1))
		ls.armed.Store(true)
		step(t, turn, loopProduced(2))
		step(t, turn, loopProduced(3))
		if got := threadTags(t, s, "t"); got != "go c0 r:c0 c1 r:c1 c2 r:c2" {
			t.Fatalf("stored after the steps: %s", got)
		}
		final := append(loopProduced(3), core.NewMessage(core.RoleAssistant, "done"))
		ls.armed.Store(true)
		if err := turn.Commit(ctx, final); err == nil {
			t.Fatal("Commit reported no error for a lost reply")
		}
		if err := turn.Commit(ctx, final); err != nil {
			t.Fatal(err)
		}
		if got := threadTags(t, s, "t"); got != "go c0 r:c0 c1 r:c1 c2 r:c2 done" {
			t.Fatalf("stored after Commit: %s", got)
		}
	})
}

// Commit after steps saves the final answer once. A loop message given
// again with tool call ids made afresh (as adapters do for calls that came
// without one) is the same message: saved again under its id, no copy. A
// Commit given only the final answer leaves the loop's messages as stored.
func TestStepThenCommitSavesOnce(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		m := newMem(t, s, core.Config{LastMessages: core.AllMessages})
		turn := loopTurn(t, m, nil)
		step(t, turn, loopProduced(1))
		step(t, turn, loopProduced(2))
		again := []core.Message{callMsg("x0"), resultMsg("x0", "result 0 of the search"), callMsg("x1"), resultMsg("x1", "result 1 of the search")}
		for i := range again { // the same arguments as c0 and c1
			again[i].Content.Parts[0].ToolInvocation.Args = loopProduced(2)[i].Content.Parts[0].ToolInvocation.Args
		}
		if err := turn.Commit(ctx, append(again, core.NewMessage(core.RoleAssistant, "done"))); err != nil {
			t.Fatal(err)
		}
		if got := threadTags(t, s, "t"); got != "go x0 r:x0 x1 r:x1 done" {
			t.Fatalf("stored: %s", got)
		}

		turn = loopTurn(t, m, nil)
		step(t, turn, loopProduced(1))
		if err := turn.Commit(ctx, []core.Message{core.NewMessage(core.RoleAssistant, "second")}); err != nil {
			t.Fatal(err)
		}
		if got := threadTags(t, s, "t"); got != "go x0 r:x0 x1 r:x1 done go c0 r:c0 second" {
			t.Fatalf("stored after a Commit of the final answer alone: %s", got)
		}
	})
}

// A read-only turn's steps save nothing, as its Commit.
func TestStepReadOnlySavesNothing(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		m := newMem(t, s, core.Config{LastMessages: core.AllMessages})
		seed(t, s, "t", "r", userAt("h1", "t", "r", "before", T(1)))
		turn := loopTurn(t, m, &core.Config{ReadOnly: core.Bool(true)})
		step(t, turn, loopProduced(2))
		if err := turn.Commit(ctx, loopProduced(2)); err != nil {
			t.Fatal(err)
		}
		if got := threadTags(t, s, "t"); got != "before" {
			t.Fatalf("a read-only turn stored: %s", got)
		}
	})
}

// A later turn on a thread whose loop stopped mid-way (no Commit) sees the
// saved steps as history within its budget: the oldest give way first, and
// a call never without its result.
func TestStepHalfFinishedTurnUnderBudget(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		m := newMem(t, s, core.Config{LastMessages: core.AllMessages})
		turn := loopTurn(t, m, nil)
		step(t, turn, loopProduced(10))
		budget := &core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 400, AtMaxRemoveTokens: core.Int(0)}}
		next, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Config: budget, Input: []core.Message{core.NewMessage(core.RoleUser, "where were we")}})
		if err != nil {
			t.Fatal(err)
		}
		prompt := conv(next.Messages())
		requirePaired(t, prompt)
		got := loopTags(prompt)
		if got == "where" || len(next.Trimmed()) == 0 {
			t.Fatalf("the budget kept %q and trimmed %d: the fixture does not trim", got, len(next.Trimmed()))
		}
		all := "go c0 r:c0 c1 r:c1 c2 r:c2 c3 r:c3 c4 r:c4 c5 r:c5 c6 r:c6 c7 r:c7 c8 r:c8 c9 r:c9 where"
		if len(got) > len(all) || all[len(all)-len(got):] != got {
			t.Fatalf("the prompt is not the newest messages in order: %s", got)
		}
	})
}
