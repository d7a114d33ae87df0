package indexing

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/vector/analysis"
)

func TestMessageText(t *testing.T) {
	ix := newRecipe(t, true)
	msg := message.Message{Role: message.RoleAssistant, Content: message.Content{Parts: []message.Part{
		message.TextPart("Here is your order."),
		{Type: message.PartToolInvocation, ToolInvocation: &message.ToolInvocation{State: message.ToolStateResult, ToolCallID: "c", ToolName: "lookupOrder",
			Args: json.RawMessage(`{"orderId":"A-1"}`), Result: json.RawMessage(`{"eta":"2026-10-30","carrier":"DHL","tags":["fast",2]}`)}},
		{Type: message.PartFile, Data: "https://x/y.jpg", MimeType: "image/jpeg", Filename: "dog.jpg",
			Extra: map[string]json.RawMessage{"caption": json.RawMessage(`"a dog on a beach"`)}},
		{Type: message.PartReasoning, Reasoning: "not indexed"},
	}}}
	want := "Here is your order.\nlookupOrder orderId A-1 carrier DHL eta 2026-10-30 tags fast 2\ndog.jpg\na dog on a beach"
	if got := ix.MessageText(&msg); got != want {
		t.Errorf("MessageText =\n%q\nwant\n%q", got, want)
	}
	off := newRecipe(t, false)
	if got := off.MessageText(&msg); got != "Here is your order." {
		t.Errorf("without tools and files: %q", got)
	}
	if off.Version == ix.Version {
		t.Error("changing what is indexed keeps the index version")
	}
}

func TestJSONText(t *testing.T) {
	for in, want := range map[string]string{
		`{"b":1,"a":{"c":"x y"}}`: "a c x y b 1",
		`[1,"two",null,true]`:     "1 two true",
		`not json`:                "not json",
		``:                        "",
	} {
		if got := jsonText(json.RawMessage(in)); got != want {
			t.Errorf("jsonText(%s) = %q, want %q", in, got, want)
		}
	}
}

// Records keep deterministic ids "<id>#<n>", the message's own text as Text,
// and the previous message's terms in Keywords.
func TestRecords(t *testing.T) {
	ix := newRecipe(t, true)
	long := message.Message{ID: "m2", Role: message.RoleUser, Content: message.Content{Parts: []message.Part{message.TextPart(strings.Repeat("parcel ", 10))}}}
	recs, embed := ix.Records([]message.Message{long}, 30, map[string]string{"m2": "Which carrier ships it?"})
	if len(recs) != 3 || recs[0].ID != "m2#0" || recs[2].ID != "m2#2" {
		t.Fatalf("records %+v", recs)
	}
	if recs[0].Text != embed[0] || strings.Contains(recs[0].Text, "carrier") {
		t.Errorf("Text %q, embedded %q: want the message's own chunk", recs[0].Text, embed[0])
	}
	if !strings.HasPrefix(recs[1].Keywords, "carrier ship parcel") {
		t.Errorf("Keywords %q: want the context's terms first", recs[1].Keywords)
	}
}

// A long message before a reply gives the reply's keywords only its last
// words: a record's keywords stay within two chunks.
func TestRecordsLongContext(t *testing.T) {
	ix := newRecipe(t, true)
	reply := message.Message{ID: "m2", Role: message.RoleAssistant, Content: message.Content{Parts: []message.Part{message.TextPart("Noted.")}}}
	context := strings.Repeat("filler ", 300_000) + "harbour lighthouse"
	recs, _ := ix.Records([]message.Message{reply}, 100, map[string]string{"m2": context})
	if len(recs) != 1 || len(recs[0].Keywords) > 200 {
		t.Fatalf("keywords of %d bytes: want the context's last 100 characters and the message", len(recs[0].Keywords))
	}
	if !strings.HasSuffix(recs[0].Keywords, "harbour lighthous note") {
		t.Errorf("Keywords %q: want the context's last words, then the message's", recs[0].Keywords)
	}
}

// newRecipe is the default recipe (one context message), with or without
// tools and files.
func newRecipe(t *testing.T, toolsAndFiles bool) *Recipe {
	t.Helper()
	an, err := analysis.New("")
	if err != nil {
		t.Fatal(err)
	}
	return New(an, 1, toolsAndFiles, toolsAndFiles)
}
