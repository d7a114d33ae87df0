package message_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agentmem/agentmem/core/message"
)

func TestDecodeLegacyShapes(t *testing.T) {
	cases := map[string]struct {
		raw   string
		parts int
		text  string
	}{
		"plain string (v1)":       {`"hello"`, 1, "hello"},
		"only content.content":    {`{"format":2,"content":"legacy text"}`, 1, "legacy text"},
		"v1 array with tool call": {`[{"type":"text","text":"hi"},{"type":"tool-call","toolCallId":"c1","toolName":"f","args":{"a":1}}]`, 2, "hi"},
		"v4 toolInvocations only": {`{"format":2,"toolInvocations":[{"state":"result","toolCallId":"c","toolName":"f","args":{},"result":1}]}`, 1, ""},
		"parts win over mirrors":  {`{"format":2,"parts":[{"type":"text","text":"a"}],"content":"a"}`, 1, "a"},
	}
	for name, c := range cases {
		var content message.Content
		if err := json.Unmarshal([]byte(c.raw), &content); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		m := message.Message{Content: content}
		if len(content.Parts) != c.parts || m.Text() != c.text || content.Format != 2 {
			t.Fatalf("%s: %+v", name, content)
		}
	}
}

func TestEncodeDerivesMirrors(t *testing.T) {
	c := message.Content{Parts: []message.Part{
		message.TextPart("one"), {Type: message.PartReasoning, Reasoning: "why"}, message.TextPart("two"),
		{Type: message.PartToolInvocation, ToolInvocation: &message.ToolInvocation{State: "call", ToolCallID: "c", ToolName: "f", Args: json.RawMessage(`{"x":1}`)}},
		{Type: message.PartFile, Data: "https://x/y.png", MimeType: "image/png"},
	}}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	if out["format"] != float64(2) || out["content"] != "one\ntwo" || out["reasoning"] != "why" ||
		len(out["toolInvocations"].([]any)) != 1 || len(out["experimental_attachments"].([]any)) != 1 {
		t.Fatalf("mirrors = %s", b)
	}
}

func TestDecodeRejectsMalformedParts(t *testing.T) {
	for _, raw := range []string{
		`{"format":2,"parts":[{"text":"no type"}]}`,
		`{"format":2,"parts":[{"type":"text","text":5}]}`,
		`{"format":2,"parts":[{"type":"tool-invocation"}]}`,
		`{"format":2,"parts":[{"type":"tool-invocation","toolInvocation":{"state":"call"}}]}`,
		`{"format":2,"parts":"nope"}`,
	} {
		var c message.Content
		if err := json.Unmarshal([]byte(raw), &c); err == nil {
			t.Fatalf("accepted %s", raw)
		}
	}
}

// FuzzContentRoundTrip: decode → encode → decode is stable, and unknown part
// types and fields survive.
func FuzzContentRoundTrip(f *testing.F) {
	seeds := []string{
		`{"format":2,"parts":[{"type":"text","text":"It ships tomorrow."},{"type":"tool-invocation","toolInvocation":{"state":"result","toolCallId":"call-1","toolName":"lookupOrder","args":{"orderId":"A-1"},"result":{"eta":"2026-10-30"}}}],"metadata":{"source":"import"}}`,
		`{"format":2,"parts":[{"type":"data-x","data":{"a":[1,2]},"id":"q"},{"type":"step-start","model":"m"}],"annotations":[1]}`,
		`"plain"`,
		`[{"type":"text","text":"v1"}]`,
		`{"format":2,"content":"{\"json\":\"string\"}","parts":[{"type":"text","text":"x"}]}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c1 message.Content
		if json.Unmarshal(data, &c1) != nil {
			return
		}
		b1, err := json.Marshal(c1)
		if err != nil {
			return // e.g. invalid UTF-8 in raw values
		}
		var c2 message.Content
		if err := json.Unmarshal(b1, &c2); err != nil {
			t.Fatalf("re-decode of %s: %v", b1, err)
		}
		b2, err := json.Marshal(c2)
		if err != nil {
			t.Fatal(err)
		}
		var v1, v2 any
		_ = json.Unmarshal(b1, &v1)
		_ = json.Unmarshal(b2, &v2)
		if !reflect.DeepEqual(v1, v2) {
			t.Fatalf("unstable:\n%s\n%s", b1, b2)
		}
	})
}

// Rows written by Mastra (or by hand) may hold null entries in parts. A stored
// row must stay readable: null parts are skipped and reported in
// Content.Skipped, unknown parts survive a round trip byte for byte.
func TestDecodeToleratesNullPartsAndKeepsUnknownOnes(t *testing.T) {
	raw := `{"format":2,"parts":[null,{"type":"text","text":"kept"},null,{"type":"data-progress","data":{"pct":40},"id":"p1"}]}`
	var c message.Content
	if err := json.Unmarshal([]byte(raw), &c); err != nil {
		t.Fatalf("row with null parts is unreadable: %v", err)
	}
	if len(c.Parts) != 2 || c.Parts[0].Text != "kept" || c.Parts[1].Type != "data-progress" {
		t.Fatalf("parts = %+v", c.Parts)
	}
	if !reflect.DeepEqual(c.Skipped, []string{"parts[0]: null", "parts[2]: null"}) {
		t.Fatalf("skipped = %q, want both null parts reported", c.Skipped)
	}
	b, err := json.Marshal(c.Parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var got, want any
	_ = json.Unmarshal(b, &got)
	_ = json.Unmarshal([]byte(`{"type":"data-progress","data":{"pct":40},"id":"p1"}`), &want)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("unknown part = %s", b)
	}
}
