package core_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/vector/local"
)

// repeatMemory stores a conversation in thread "old" of resource "r" where
// the same question was asked twice (once with other casing and
// punctuation) and then answered, plus unrelated small talk, and an empty
// thread "new" for the next turn.
func repeatMemory(t *testing.T, sr core.SemanticRecall) *core.Memory {
	t.Helper()
	m, err := core.New(core.Options{Store: memstore.New(), Vector: local.New(), Embedder: local.NewHashEmbedder(64),
		Config: core.Config{SemanticRecall: &sr}})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"old", "new"} {
		if _, err := m.CreateThread(ctx, core.ThreadInput{ID: id, ResourceID: "r"}); err != nil {
			t.Fatal(err)
		}
	}
	texts := []string{
		"What carrier was my order using again?",
		"The weather is lovely today.",
		"what carrier was my order using, again",
		"Your order ships with the carrier DHL, tracking number 4711.",
		"I like hiking on weekends.",
		"My order number is 123 and the carrier changed last week.",
		"Thanks, that helps a lot.",
	}
	var msgs []core.Message
	for i, txt := range texts {
		role := core.RoleUser
		if i == 3 {
			role = core.RoleAssistant
		}
		msg := core.NewMessage(role, txt)
		msg.ID, msg.ThreadID, msg.ResourceID, msg.CreatedAt = "m"+string(rune('0'+i)), "old", "r", T(i)
		msgs = append(msgs, msg)
	}
	if _, err := m.SaveMessages(ctx, msgs, nil); err != nil {
		t.Fatal(err)
	}
	return m
}

// Mastra's semantic recall fills topK with the best matches; here a text
// said twice takes one slot, so the other slots hold other evidence.
func TestSemanticRecallCollapsesRepeatedTexts(t *testing.T) {
	m := repeatMemory(t, core.SemanticRecall{TopK: 3, MessageRange: &core.MessageRange{}})
	res, err := m.Recall(ctx, core.RecallQuery{ThreadID: "new", ResourceID: "r", VectorSearch: "Which carrier is my order using?",
		Config: &core.Config{LastMessages: core.NoHistory}})
	if err != nil {
		t.Fatal(err)
	}
	got := ids(res.Messages)
	if len(got) != 3 {
		t.Fatalf("recalled %v, want topK 3 distinct messages", got)
	}
	if slices.Contains(got, "m0") && slices.Contains(got, "m2") {
		t.Fatalf("recalled %v: the repeated question takes two slots", got)
	}
	if !slices.Contains(got, "m3") {
		t.Fatalf("recalled %v: the answer is missing", got)
	}
}

// The question being asked is not recalled beside itself: a stored message
// with the input's text is no hit of the turn.
func TestSemanticRecallLeavesOutTheInputsOwnText(t *testing.T) {
	m := repeatMemory(t, core.SemanticRecall{TopK: 2, MessageRange: &core.MessageRange{}})
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "new", ResourceID: "r",
		Input: []core.Message{core.NewMessage(core.RoleUser, "What carrier was my order using again?")}})
	if err != nil {
		t.Fatal(err)
	}
	prompt := ""
	for _, msg := range turn.Messages() {
		prompt += msg.Text() + "\n"
	}
	if n := strings.Count(strings.ToLower(prompt), "what carrier was my order using"); n != 1 {
		t.Fatalf("the question appears %d times in the prompt, want once (the input):\n%s", n, prompt)
	}
	if !strings.Contains(prompt, "DHL") {
		t.Fatalf("the answer was not recalled:\n%s", prompt)
	}
}

// Diversity validates lambda and candidates like every other setting.
func TestDiversityConfigValidated(t *testing.T) {
	for _, d := range []core.Diversity{{Lambda: core.Float(-0.1)}, {Lambda: core.Float(1.5)}, {Candidates: -1}} {
		_, err := core.New(core.Options{Store: memstore.New(), Vector: local.New(), Embedder: local.NewHashEmbedder(64),
			Config: core.Config{SemanticRecall: &core.SemanticRecall{Diversity: &d}}})
		if !hasCode(err, memerr.CodeInvalidConfig) {
			t.Errorf("Diversity %+v: err %v, want %s", d, err, memerr.CodeInvalidConfig)
		}
	}
	for _, r := range []core.Retrieval{{TopK: -1}, {MaxTokens: -5}} {
		_, err := core.New(core.Options{Store: memstore.New(), Vector: local.New(), Embedder: local.NewHashEmbedder(64),
			Config: core.Config{SemanticRecall: &core.SemanticRecall{Retrieval: &r}}})
		if !hasCode(err, memerr.CodeInvalidConfig) {
			t.Errorf("Retrieval %+v: err %v, want %s", r, err, memerr.CodeInvalidConfig)
		}
	}
}

// With diversity the picks still come from the candidates, each once, and
// lambda 1 returns the relevance order of the plain search.
func TestDiversityRerank(t *testing.T) {
	q := core.RecallQuery{ThreadID: "new", ResourceID: "r", VectorSearch: "my order carrier"}
	plain := repeatMemory(t, core.SemanticRecall{TopK: 3, MessageRange: &core.MessageRange{}})
	q.Config = &core.Config{LastMessages: core.NoHistory}
	want, err := plain.Recall(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	for _, lambda := range []float64{1, 0.3} {
		m := repeatMemory(t, core.SemanticRecall{TopK: 3, MessageRange: &core.MessageRange{},
			Diversity: &core.Diversity{Lambda: core.Float(lambda)}})
		got, err := m.Recall(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Messages) != 3 {
			t.Fatalf("λ %v: recalled %v, want 3", lambda, ids(got.Messages))
		}
		if lambda == 1 && !slices.Equal(ids(got.Messages), ids(want.Messages)) {
			t.Fatalf("λ 1 recalled %v, the plain search %v", ids(got.Messages), ids(want.Messages))
		}
	}
}

// hasCode reports whether err is a *memerr.Error with code c.
func hasCode(err error, c memerr.Code) bool {
	var e *memerr.Error
	return errors.As(err, &e) && e.Code == c
}
