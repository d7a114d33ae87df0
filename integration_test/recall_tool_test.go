package integration_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
)

// recallFixture saves, under a fresh resource, a question asked twice, its
// answer and small talk in one thread, and a message of another resource.
func recallFixture(t *testing.T, mem *core.Memory) (res, thread string) {
	t.Helper()
	n := rand.Int64N(1 << 40)
	res, thread = fmt.Sprintf("rt-user-%d", n), fmt.Sprintf("rt-thread-%d", n)
	save(t, mem, thread, res,
		"What carrier was my order using again?",
		"Let me check that for you.",
		"what carrier was my order using, again",
		"Your order ships with the carrier DHL, tracking number 4711.",
		"I like hiking on weekends with my dog.",
		"Good to know, enjoy the hiking.")
	save(t, mem, fmt.Sprintf("rt-other-%d", n), fmt.Sprintf("rt-other-user-%d", n), "My order ships with UPS, the carrier I chose.")
	return res, thread
}

// Semantic recall fills topK with different texts (a question said twice
// takes one slot), and the recall tool searches the resource, fenced with
// ids and dates: on every message store and vector store.
func TestRecallHitsAndToolOnEveryStore(t *testing.T) {
	for _, sb := range omBackends() {
		for _, vb := range vectorBackends() {
			t.Run(sb.name+"/"+vb.name, func(t *testing.T) {
				vs, emb := vb.open(t)
				mem, err := core.New(core.Options{Store: sb.open(t), Vector: vs, Embedder: emb,
					Config: core.Config{SemanticRecall: &core.SemanticRecall{Retrieval: &core.Retrieval{}}}})
				if err != nil {
					t.Fatal(err)
				}
				res, thread := recallFixture(t, mem)
				t.Run("SemanticRecallCollapsesRepeatedTexts", func(t *testing.T) {
					for _, d := range []*core.Diversity{nil, {}} {
						got := recallTexts(t, mem, core.RecallQuery{ThreadID: thread, ResourceID: res, VectorSearch: "Which carrier is my order using?",
							Config: onlySemantic(core.SemanticRecall{TopK: 3, MessageRange: &core.MessageRange{}, Diversity: d})})
						if len(got) != 3 {
							t.Fatalf("diversity %v: recalled %q, want 3", d, got)
						}
						n := 0
						for _, txt := range got {
							if strings.Contains(strings.ToLower(txt), "what carrier was my order using") {
								n++
							}
						}
						if n > 1 {
							t.Fatalf("diversity %v: the repeated question takes %d of 3 slots: %q", d, n, got)
						}
					}
				})
				t.Run("RecallToolSearchesTheResource", func(t *testing.T) {
					tools, err := mem.Tools(bg, thread, res, nil)
					if err != nil {
						t.Fatal(err)
					}
					i := slices.IndexFunc(tools, func(tl core.Tool) bool { return tl.Name == core.RecallToolName })
					if i < 0 {
						t.Fatalf("no recall tool among %d", len(tools))
					}
					raw, err := tools[i].Call(bg, json.RawMessage(`{"query":"order carrier DHL"}`))
					if err != nil {
						t.Fatal(err)
					}
					var out struct {
						Messages string `json:"messages"`
						Found    int    `json:"found"`
						Error    string `json:"error"`
					}
					if err := json.Unmarshal(raw, &out); err != nil || out.Error != "" {
						t.Fatalf("result %s: %v", raw, err)
					}
					if !strings.HasPrefix(out.Messages, "<recalled_messages>\n") || !strings.Contains(out.Messages, "[thread "+thread+"]") ||
						!strings.Contains(out.Messages, "Assistant: Your order ships with the carrier DHL") {
						t.Fatalf("result %s", raw)
					}
					if strings.Contains(out.Messages, "UPS") {
						t.Fatalf("another resource's message: %s", raw)
					}
				})
			})
		}
	}
}
