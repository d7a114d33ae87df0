package integration_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core"
)

// recallFixture saves, under a fresh resource, a question asked twice, its
// answer and small talk in one thread, and a message of another resource.
func recallFixture(t *testing.T, mem *core.Memory) (res, thread, other string) {
	t.Helper()
	n := rand.Int64N(1 << 40)
	res, thread, other = fmt.Sprintf("rt-user-%d", n), fmt.Sprintf("rt-thread-%d", n), fmt.Sprintf("rt-other-%d", n)
	save(t, mem, thread, res,
		"What carrier was my order using again?",
		"Let me check that for you.",
		"what carrier was my order using, again",
		"Your order ships with the carrier DHL, tracking number 4711.",
		"I like hiking on weekends with my dog.",
		"Good to know, enjoy the hiking.")
	save(t, mem, other, fmt.Sprintf("rt-other-user-%d", n), "My order ships with UPS, the carrier I chose.")
	return res, thread, other
}

// Semantic recall fills topK with different texts (a question said twice
// takes one slot), and the recall tool searches the resource, fenced with
// ids and dates, narrowed to a thread or a date range as the model asks:
// on every message store and vector store.
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
				res, thread, other := recallFixture(t, mem)
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
					out, raw := callRecallTool(t, mem, thread, res, `{"query":"order carrier DHL"}`)
					if !strings.HasPrefix(out.Messages, "<recalled_messages>\n") || !strings.Contains(out.Messages, "[thread "+thread+"]") ||
						!strings.Contains(out.Messages, "Assistant: Your order ships with the carrier DHL") {
						t.Fatalf("result %s", raw)
					}
					if strings.Contains(out.Messages, "UPS") {
						t.Fatalf("another resource's message: %s", raw)
					}
				})
				t.Run("RecallToolThreadAndDateRange", func(t *testing.T) {
					day := func(d int) string { return time.Now().UTC().AddDate(0, 0, d).Format("2006-01-02") }
					for _, c := range []struct {
						args  string
						found bool
					}{
						{`{"query":"order carrier DHL","threadId":"` + thread + `"}`, true},
						{`{"query":"order carrier DHL","threadId":"` + other + `"}`, false},
						{`{"query":"order carrier DHL","from":"` + day(-1) + `","to":"` + day(2) + `"}`, true},
						{`{"query":"order carrier DHL","from":"` + day(2) + `"}`, false},
						{`{"query":"order carrier DHL","to":"` + day(-2) + `"}`, false},
					} {
						out, raw := callRecallTool(t, mem, thread, res, c.args)
						if got := strings.Contains(out.Messages, "carrier DHL"); got != c.found || (!c.found && out.Found != 0) {
							t.Fatalf("%s: found DHL %v, want %v: %s", c.args, got, c.found, raw)
						}
						if strings.Contains(out.Messages, "UPS") {
							t.Fatalf("%s: another resource's message: %s", c.args, raw)
						}
					}
				})
			})
		}
	}
}

// recallToolResult is the recall tool's JSON result.
type recallToolResult struct {
	Messages string `json:"messages"`
	Found    int    `json:"found"`
	Error    string `json:"error"`
}

// callRecallTool calls the recall tool of thread with args and fails the
// test on an error result.
func callRecallTool(t *testing.T, mem *core.Memory, thread, res, args string) (recallToolResult, json.RawMessage) {
	t.Helper()
	tools, err := mem.Tools(bg, thread, res, nil)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(tools, func(tl core.Tool) bool { return tl.Name == core.RecallToolName })
	if i < 0 {
		t.Fatalf("no recall tool among %d", len(tools))
	}
	raw, err := tools[i].Call(bg, json.RawMessage(args))
	if err != nil {
		t.Fatal(err)
	}
	var out recallToolResult
	if err := json.Unmarshal(raw, &out); err != nil || out.Error != "" {
		t.Fatalf("%s: result %s: %v", args, raw, err)
	}
	return out, raw
}
