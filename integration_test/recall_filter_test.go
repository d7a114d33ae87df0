package integration_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/message"
)

// The configured SemanticRecall.Filter holds on every message store and
// vector store, on every path that searches: the recall tool in each of its
// modes, Recall and a turn's semantic recall. The private message ("my
// bank PIN is 4711") and one without visibility never come back; the
// public one does.
func TestRecallFilterOnEveryStore(t *testing.T) {
	filter, err := message.ParseFilter(map[string]any{"visibility": "public"})
	if err != nil {
		t.Fatal(err)
	}
	for _, sb := range omBackends() {
		for _, vb := range vectorBackends() {
			t.Run(sb.name+"/"+vb.name, func(t *testing.T) {
				vs, emb := vb.open(t)
				mem, err := core.New(core.Options{Store: sb.open(t), Vector: vs, Embedder: emb,
					Config: core.Config{SemanticRecall: &core.SemanticRecall{MessageRange: &core.MessageRange{},
						Filter: filter, Retrieval: &core.Retrieval{}}}})
				if err != nil {
					t.Fatal(err)
				}
				res, cur, vault := filterFixture(t, mem)
				day := time.Now().UTC().Format("2006-01-02")
				for _, args := range []string{`{"query":"my bank PIN"}`, `{"query":"my bank PIN","mode":"semantic"}`,
					`{"query":"my bank PIN","threadId":"` + vault + `"}`, `{"query":"my bank PIN","from":"` + day + `"}`,
					`{"query":"my bank PIN","to":"2999-01-01","mode":"semantic"}`} {
					out, raw := callRecallTool(t, mem, cur, res, args)
					wantPublic := !strings.Contains(args, vault)
					if checkFiltered(t, "recall tool "+args, out.Messages); wantPublic != strings.Contains(out.Messages, "Sparkasse") {
						t.Errorf("%s: public message found %v, want %v: %s", args, !wantPublic, wantPublic, raw)
					}
				}
				got := recallTexts(t, mem, core.RecallQuery{ThreadID: cur, ResourceID: res, VectorSearch: "my bank PIN"})
				checkFiltered(t, "Recall", strings.Join(got, "\n"))
				turn, err := mem.Begin(bg, core.TurnRequest{ThreadID: cur, ResourceID: res, Input: []core.Message{core.NewMessage(core.RoleUser, "what is my bank PIN?")}})
				if err != nil || turn.RecallErr() != nil {
					t.Fatal(err, turn.RecallErr())
				}
				for _, msg := range turn.Messages() {
					checkFiltered(t, "Begin", msg.Text())
				}
			})
		}
	}
}

// filterFixture saves, under a fresh resource, a public message in one
// thread and a private one and one without visibility in another (the
// vault); the current thread is empty.
func filterFixture(t *testing.T, mem *core.Memory) (res, cur, vault string) {
	t.Helper()
	n := rand.Int64N(1 << 40)
	res, cur, vault = fmt.Sprintf("rf-user-%d", n), fmt.Sprintf("rf-cur-%d", n), fmt.Sprintf("rf-vault-%d", n)
	pub := fmt.Sprintf("rf-pub-%d", n)
	for _, th := range []string{cur, vault, pub} {
		if _, err := mem.CreateThread(bg, core.ThreadInput{ID: th, ResourceID: res}); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []struct {
		thread, text string
		md           map[string]any
	}{
		{pub, "my bank PIN letter from Sparkasse arrived", map[string]any{"visibility": "public"}},
		{vault, "my bank PIN is 4711", map[string]any{"visibility": "private"}},
		{vault, "my old bank PIN was 0815", nil},
	} {
		msg := core.NewMessage(core.RoleUser, s.text)
		msg.ThreadID, msg.ResourceID, msg.Content.Metadata = s.thread, res, s.md
		if _, err := mem.SaveMessages(bg, []core.Message{msg}, nil); err != nil {
			t.Fatal(err)
		}
	}
	return res, cur, vault
}

// checkFiltered fails the test when text holds a message the filter excludes.
func checkFiltered(t *testing.T, what, text string) {
	t.Helper()
	if strings.Contains(text, "4711") || strings.Contains(text, "0815") {
		t.Errorf("%s returned a message its filter excludes: %q", what, text)
	}
}
