package message

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestMarshalStoredTextShape: content of text parts only is encoded without
// maps or reflection, to the same bytes as the general encoding (one part:
// encoding/json's string of its text), whatever the text holds (every byte
// value, invalid UTF-8, characters encoding/json escapes), and reads back as
// the same parts.
func TestMarshalStoredTextShape(t *testing.T) {
	every := make([]byte, 256)
	for i := range every {
		every[i] = byte(i)
	}
	texts := []string{"plain", `<b>&"quoted"</b>` + "\n\u2028\u2029", string(every), "\xff\xfe a\xe2\x80 \U0001F600 é\x7f\\/"}
	const pieces = "a\"\\<>&\x00\x1f\n\xe2\x80\xa8\xc3\xa9\xff\xf0\x9f\x98\x80"
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = pieces[rng.IntN(len(pieces))]
		}
		texts = append(texts, string(b))
	}
	contents := []Content{{Parts: []Part{{Type: PartText, Text: "x"}, {Type: PartText, Text: ""}}}}
	for _, text := range texts {
		contents = append(contents, Content{Parts: []Part{{Type: PartText, Text: text}}})
	}
	for _, c := range contents {
		if !c.isStoredText() {
			t.Fatalf("%+v: not taken as text-only content", c)
		}
		checkStoredText(t, c)
	}
	for _, c := range []Content{
		{},
		{Parts: []Part{{Type: PartText, Text: "x"}}, Metadata: map[string]any{"k": 1}},
		{Parts: []Part{{Type: PartText, Text: "x", Extra: map[string]json.RawMessage{"k": json.RawMessage(`1`)}}}},
		{Parts: []Part{{Type: PartReasoning, Reasoning: "x"}}},
	} {
		if c.isStoredText() {
			t.Fatalf("%+v: taken as text-only content", c)
		}
	}
}

func TestStoredToolCallIDs(t *testing.T) {
	call := Message{Content: Content{Format: 2, Parts: []Part{TextPart(`quoting "toolInvocation" in text`),
		{Type: PartToolInvocation, ToolInvocation: &ToolInvocation{State: ToolStateCall, ToolCallID: "c<1>&", ToolName: "f", Args: json.RawMessage(`{}`)}}}}}
	text := Message{Content: Content{Format: 2, Parts: []Part{TextPart("no tools here")}}}
	for _, c := range []struct {
		name   string
		stored string
		want   []string
		may    bool
	}{
		{"call", mustStored(t, call.Content), []string{"c<1>&"}, true},
		{"text", mustStored(t, text.Content), nil, false},
		{"text quoting a call", mustStored(t, Content{Parts: []Part{TextPart(`{"parts":[{"toolInvocation":{"toolCallId":"q"}}]}`)}}), nil, false},
		{"legacy mirror without parts", `{"format":2,"toolInvocations":[{"state":"result","toolCallId":"old"}]}`, []string{"old"}, true},
		{"jsonb spacing", `{"parts": [{"type": "tool-invocation", "toolInvocation": {"toolCallId": "x"}}]}`, []string{"x"}, true},
	} {
		if got := MayHoldToolParts([]byte(c.stored)); got != c.may {
			t.Errorf("%s: MayHoldToolParts = %v", c.name, got)
		}
		got, err := StoredToolCallIDs([]byte(c.stored))
		if err != nil || fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: StoredToolCallIDs = %v, %v; want %v", c.name, got, err, c.want)
		}
		var m Message
		if err := json.Unmarshal([]byte(c.stored), &m.Content); err != nil || fmt.Sprint(m.ToolCallIDs()) != fmt.Sprint(c.want) {
			t.Errorf("%s: decoded tool calls %v (%v), want %v", c.name, m.ToolCallIDs(), err, c.want)
		}
	}
}

func mustStored(t *testing.T, c Content) string {
	t.Helper()
	b, err := MarshalStored(c)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestUnmarshalStored: stored content decodes as UnmarshalJSON decodes its
// compact form, whatever white space a jsonb column added, and bad bytes
// are refused.
func TestUnmarshalStored(t *testing.T) {
	for _, c := range []struct{ stored, compact string }{
		{`{"format": 2, "parts": [{"text": "a b", "type": "text"}]}`, `{"format":2,"parts":[{"text":"a b","type":"text"}]}`},
		{`{"parts": [{"type": "tool-invocation", "toolInvocation": {"state": "call", "toolCallId": "c1", "toolName": "f", "args": {"b": 1, "a": [1, 2]}}}]}`,
			`{"parts":[{"type":"tool-invocation","toolInvocation":{"state":"call","toolCallId":"c1","toolName":"f","args":{"b":1,"a":[1,2]}}}]}`},
		{`{"format": 2, "parts": [], "metadata": {"k": [1, 2]}}`, `{"format":2,"parts":[],"metadata":{"k":[1,2]}}`},
	} {
		var got, want Content
		if err := UnmarshalStored([]byte(c.stored), &got); err != nil {
			t.Fatalf("%s: %v", c.stored, err)
		}
		if err := want.UnmarshalJSON([]byte(c.compact)); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\ngot  %#v\nwant %#v", c.stored, got, want)
		}
	}
	if inv := func() *ToolInvocation {
		var c Content
		_ = UnmarshalStored([]byte(`{"parts": [{"type": "tool-invocation", "toolInvocation": {"toolCallId": "x", "args": {"a": 1}}}]}`), &c)
		return c.Parts[0].ToolInvocation
	}(); string(inv.Args) != `{"a":1}` {
		t.Errorf("args %s, want them compacted", inv.Args)
	}
	for _, bad := range []string{`{"parts": [`, `{"format":2,"parts":[{"type":"text","text":"a"}]} x`, ``} {
		var c Content
		if err := UnmarshalStored([]byte(bad), &c); err == nil {
			t.Errorf("%q: decoded as %#v", bad, c)
		}
	}
}

// FuzzMarshalStoredText: the encoding of text-only content without
// reflection is the bytes encoding/json gives, whatever the texts, and
// reads back as the general encoding does.
func FuzzMarshalStoredText(f *testing.F) {
	for _, s := range []string{"plain text, numbers 1.5", `<b>&"q"</b>`, "tab\there", "é \u2028 \xff", ""} {
		f.Add(s, "second ~ part")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		checkStoredText(t, Content{Parts: []Part{TextPart(a)}}) // the short form
		checkStoredText(t, Content{Parts: []Part{TextPart(a), TextPart(b)}})
	})
}

// checkStoredText requires MarshalStored to give c the general encoding's
// bytes.
func checkStoredText(t *testing.T, c Content) {
	t.Helper()
	got, err := MarshalStored(c)
	if err != nil {
		t.Fatal(err)
	}
	var want []byte
	if len(c.Parts) == 1 {
		want, err = json.Marshal(c.Parts[0].Text)
	} else {
		want, err = json.Marshal(c.storedFields())
	}
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("%+v: %s, general encoding %s", c, got, want)
	}
	// Read back, here and by encoding/json (as binaries before the short
	// form read it), it is what the general encoding read back is.
	general, err := json.Marshal(c.storedFields())
	if err != nil {
		t.Fatal(err)
	}
	var back, generic, wantBack Content
	if err := UnmarshalStored(got, &back); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	if err := json.Unmarshal(got, &generic); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	if err := json.Unmarshal(general, &wantBack); err != nil {
		t.Fatalf("%s: %v", general, err)
	}
	if !reflect.DeepEqual(back, wantBack) || !reflect.DeepEqual(generic, wantBack) {
		t.Fatalf("%s: read back as %+v and %+v, the general encoding as %+v", got, back, generic, wantBack)
	}
}
