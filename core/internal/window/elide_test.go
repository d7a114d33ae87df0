package window

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core/message"
)

// lenCount counts a message as the bytes of its tool results.
func lenCount(m *message.Message) int {
	n := 0
	for _, p := range m.Content.Parts {
		if ti := p.ToolInvocation; ti != nil {
			n += len(ti.Result)
		}
	}
	return n
}

func resultsMsg(ids ...string) message.Message {
	m := message.Message{Role: message.RoleAssistant, Content: message.Content{Format: 2}}
	for _, id := range ids {
		r, _ := json.Marshal(strings.Repeat(id, 500))
		m.Content.Parts = append(m.Content.Parts, message.Part{Type: message.PartToolInvocation, ToolInvocation: &message.ToolInvocation{
			State: message.ToolStateResult, ToolCallID: id, ToolName: "fetch", Result: r}})
	}
	m.Tokens = lenCount(&m)
	return m
}

func elidedIDs(msgs []message.Message) []string {
	var out []string
	for _, m := range msgs {
		for _, p := range m.Content.Parts {
			if IsElided(p.ToolInvocation) {
				out = append(out, p.ToolInvocation.ToolCallID)
			}
		}
	}
	return out
}

// Results are elided oldest first until enough is freed, across and within
// messages; the input is left as it was and counts are kept exact.
func TestElideToolResultsOldestFirst(t *testing.T) {
	msgs := []message.Message{resultsMsg("a", "b"), resultsMsg("c"), resultsMsg("d")}
	out, freed := ElideToolResults(msgs, 600, 1, lenCount)
	if got := elidedIDs(out); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("elided %v, want [a b]", got)
	}
	if elidedIDs(msgs) != nil {
		t.Fatal("the input was modified")
	}
	if freed < 600 || out[0].Tokens != lenCount(&out[0]) || msgs[0].Tokens-out[0].Tokens != freed {
		t.Fatalf("freed %d, tokens %d (count %d)", freed, out[0].Tokens, lenCount(&out[0]))
	}
	var stub string
	_ = json.Unmarshal(out[0].Content.Parts[0].ToolInvocation.Result, &stub)
	if !strings.Contains(stub, `"fetch"`) || !strings.Contains(stub, "elided") {
		t.Fatalf("stub %q does not name the tool and say it was elided", stub)
	}
}

// The newest keep results are never elided, however much is needed.
func TestElideToolResultsKeepsNewest(t *testing.T) {
	msgs := []message.Message{resultsMsg("a"), resultsMsg("b"), resultsMsg("c")}
	out, _ := ElideToolResults(msgs, 1<<20, 0, lenCount)
	if got := elidedIDs(out); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("elided %v, want [a b]", got)
	}
	out, _ = ElideToolResults(msgs, 1<<20, 2, lenCount)
	if got := elidedIDs(out); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("elided %v, want [a]", got)
	}
	if out, freed := ElideToolResults(msgs, 0, 1, lenCount); freed != 0 || elidedIDs(out) != nil {
		t.Fatal("nothing needed, something elided")
	}
}
