package core_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/internal/testenv"
)

// TestBudgetKeepsNewestExchangeOverRecall: under a budget too small for the
// newest exchange and every recalled message, recalled messages give way
// (least relevant first) and the newest exchange of history stays whole;
// older history that recall did not find goes before both.
func TestBudgetKeepsNewestExchangeOverRecall(t *testing.T) {
	m, err := core.New(core.Options{Store: memstore.New(), Vector: local.New(), Embedder: local.NewHashEmbedder(64), Tokenizer: testenv.ByteTokenizer{},
		Config: core.Config{
			MessageHistory: &core.MessageHistory{MaxTokens: 120, AtMaxRemoveTokens: core.Int(0)},
			SemanticRecall: &core.SemanticRecall{TopK: 4, MessageRange: &core.MessageRange{}, Scope: core.ScopeThread},
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close(ctx) })
	if _, err := m.CreateThread(ctx, core.ThreadInput{ID: "t", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	var msgs []core.Message
	for i := range 8 {
		topic := map[bool]string{true: "peanut", false: "weather"}[i%2 == 0]
		msgs = append(msgs, userAt(fmt.Sprintf("%s%d", topic, i), "t", "r", text(fmt.Sprintf("%s %d", topic, i), 20), T(i)))
	}
	answer := userAt("a-last", "t", "r", text("sure", 20), T(11))
	answer.Role = core.RoleAssistant
	msgs = append(msgs, userAt("q-last", "t", "r", text("shipping?", 20), T(10)), answer)
	if _, err := m.SaveMessages(ctx, msgs, nil); err != nil {
		t.Fatal(err)
	}
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r",
		Input: []core.Message{core.NewMessage(core.RoleUser, "peanut?")}})
	if err != nil {
		t.Fatal(err)
	}
	var got, old []string
	for _, msg := range turn.Messages() {
		got = append(got, msg.ID)
		if msg.ID != "q-last" && msg.ID != "a-last" && msg.Source != core.SourceInput {
			old = append(old, msg.ID)
		}
	}
	if !slices.Contains(got, "q-last") || !slices.Contains(got, "a-last") {
		t.Errorf("prompt %v lost the newest exchange (q-last, a-last)", got)
	}
	// Room for three 20-token messages beside the exchange and the input:
	// three of the four recalled peanut messages, no weather.
	if len(old) != 3 || slices.ContainsFunc(old, func(id string) bool { return id[0] != 'p' }) {
		t.Errorf("prompt %v: want three recalled peanut messages beside the newest exchange", got)
	}
}
