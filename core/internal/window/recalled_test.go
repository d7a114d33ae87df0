package window

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// budgetMsg is a prompt message of a given source and token cost.
func budgetMsg(id string, src message.Source, tokens int) message.Message {
	m := message.NewMessage(message.RoleUser, id)
	m.ID, m.Source, m.Tokens = id, src, tokens
	return m
}

func at(n int) time.Time { return time.Date(2026, 1, 1, 0, 0, n, 0, time.UTC) }

// dropped lists the ids the turn's budget policy drops from conv to fit target.
func dropped(conv []message.Message, ranks map[string]int, target int) []string {
	res := budget.Fit(conv, Remembered(conv, ranks, target, budget.ReplyPriming))
	var out []string
	for i, keep := range res.Keep {
		if !keep {
			out = append(out, conv[i].ID)
		}
	}
	return out
}

func wantDropped(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("dropped %v, want %v", got, want)
	}
}

// Rule 1: input and context never give way, even when the prompt cannot fit.
func TestBudgetKeepsInputAndContext(t *testing.T) {
	conv := []message.Message{budgetMsg("h", message.SourceMemory, 10), budgetMsg("c", message.SourceContext, 500), budgetMsg("in", message.SourceInput, 500)}
	wantDropped(t, dropped(conv, nil, 100), "h")
}

// Rule 2: a remembered message larger than the room for remembered messages
// is dropped alone; the smaller history around it stays.
func TestBudgetDropsOversizedAlone(t *testing.T) {
	conv := []message.Message{budgetMsg("h1", message.SourceMemory, 20), budgetMsg("story", message.SourceMemory, 1000),
		budgetMsg("h3", message.SourceMemory, 20), budgetMsg("in", message.SourceInput, 20)}
	wantDropped(t, dropped(conv, nil, 200), "story")
}

// Rule 2 for recall: an oversized hit goes alone, the other hits stay.
func TestBudgetDropsOversizedHitAlone(t *testing.T) {
	conv := []message.Message{budgetMsg("r0", message.SourceRecall, 30), budgetMsg("big", message.SourceRecall, 900),
		budgetMsg("r2", message.SourceRecall, 30), budgetMsg("in", message.SourceInput, 20)}
	ranks := map[string]int{"r0": 0, "big": 1, "r2": 2}
	wantDropped(t, dropped(conv, ranks, 200), "big")
}

// Rule 3: the newest exchange of history (from its last user message on)
// stays; older history gives way, oldest first, before any recalled message,
// wherever the recalled message sits.
func TestBudgetHistoryBeforeRecall(t *testing.T) {
	conv := []message.Message{budgetMsg("h1", message.SourceMemory, 50), budgetMsg("r", message.SourceRecall, 50),
		budgetMsg("h2", message.SourceMemory, 50), budgetMsg("h3", message.SourceMemory, 50), budgetMsg("in", message.SourceInput, 10)}
	wantDropped(t, dropped(conv, map[string]int{"r": 0}, 120), "h1", "h2")
}

// Rule 3: recalled messages give way before the newest exchange of history,
// least relevant first; the exchange stays whole with its answer.
func TestBudgetNewestExchangeBeforeRecall(t *testing.T) {
	answer := budgetMsg("a", message.SourceMemory, 30)
	answer.Role = message.RoleAssistant
	conv := []message.Message{budgetMsg("r0", message.SourceRecall, 30), budgetMsg("r1", message.SourceRecall, 30),
		budgetMsg("h1", message.SourceMemory, 30), budgetMsg("q", message.SourceMemory, 30), answer, budgetMsg("in", message.SourceInput, 10)}
	wantDropped(t, dropped(conv, map[string]int{"r0": 1, "r1": 0}, 110), "r0", "h1")
}

// Rule 4: recalled hits give way least relevant first, each whole with its
// range; the most relevant hit stays.
func TestBudgetLeastRelevantHitFirst(t *testing.T) {
	conv := []message.Message{
		budgetMsg("a-before", message.SourceRecall, 20), budgetMsg("a", message.SourceRecall, 20), // rank 1
		budgetMsg("b", message.SourceRecall, 20), budgetMsg("b-after", message.SourceRecall, 20), // rank 0
		budgetMsg("in", message.SourceInput, 10)}
	ranks := map[string]int{"a-before": 1, "a": 1, "b": 0, "b-after": 0}
	wantDropped(t, dropped(conv, ranks, 60), "a-before", "a")
}

// MarkRecalled ranks a message by its best hit, also a message history
// held, and marks as recalled only the messages recall added.
func TestMarkRecalled(t *testing.T) {
	hist := []message.Message{budgetMsg("m1", message.SourceMemory, 1), budgetMsg("m2", message.SourceMemory, 1), budgetMsg("m3", message.SourceMemory, 1)}
	for i := range hist {
		hist[i].CreatedAt = at(i + 2)
	}
	old := budgetMsg("m0", message.SourceMemory, 1)
	old.CreatedAt = at(1)
	conv, ranks := MarkRecalled(hist, []message.Message{old}, []store.Include{{ID: "m3", Before: 1}, {ID: "m0", After: 1}})
	var got []string
	for _, m := range conv {
		got = append(got, fmt.Sprintf("%s:%s:%d", m.ID, m.Source, ranks[m.ID]))
	}
	want := []string{"m0:recall:1", "m1:memory:1", "m2:memory:0", "m3:memory:0"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// Only dropped sliding history advances the boundary.
func TestSlidingOnly(t *testing.T) {
	got := SlidingOnly([]message.Message{budgetMsg("h", message.SourceMemory, 1), budgetMsg("r", message.SourceRecall, 1)})
	if len(got) != 1 || got[0].ID != "h" {
		t.Fatalf("slidingOnly = %v", got)
	}
}

// Sliding history stays a contiguous newest run: once a unit does not fit,
// older ones give way too, even smaller ones (only a unit larger than the
// whole room is dropped alone).
func TestBudgetHistoryContiguous(t *testing.T) {
	conv := []message.Message{budgetMsg("h1", message.SourceMemory, 5), budgetMsg("h2", message.SourceMemory, 60),
		budgetMsg("h3", message.SourceMemory, 50), budgetMsg("in", message.SourceInput, 10)}
	wantDropped(t, dropped(conv, nil, 120), "h1", "h2")
}
