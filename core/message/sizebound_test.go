package message

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestEncodedSizeBound: the bound that lets a size check skip encoding is
// never below the real encoded size, for every part type, for text that
// escaping expands most (control characters, HTML characters, invalid
// UTF-8) and for the mirrors MarshalJSON derives.
func TestEncodedSizeBound(t *testing.T) {
	step := 123456789
	worst := strings.Repeat("\x01<>&\u2028\xff\"\\", 50)
	contents := []Content{
		{},
		{Parts: []Part{TextPart("")}},
		{Parts: []Part{TextPart(worst), TextPart(worst)}},
		{Parts: []Part{{Type: PartReasoning, Reasoning: worst, Details: []ReasoningDetail{{Type: "text", Text: worst, Signature: worst}}}}},
		{Parts: []Part{{Type: PartToolInvocation, ToolInvocation: &ToolInvocation{State: ToolStateResult, ToolCallID: worst, ToolName: "t",
			Args: json.RawMessage(`{"a":"<<<<"}`), Result: json.RawMessage(`["<&>"]`), IsError: true, ErrorText: worst, Step: &step}}}},
		{Parts: []Part{{Type: PartFile, Data: worst, MimeType: "text/plain", Filename: worst}}},
		{Parts: []Part{{Type: PartSource, Source: &SourceRef{SourceType: "url", ID: worst, URL: worst, Title: worst, ProviderMetadata: json.RawMessage(`{"x":"<"}`)}}}},
		{Parts: []Part{{Type: "custom", Extra: map[string]json.RawMessage{"k<": json.RawMessage(`"<<<"`)}}},
			ProviderMetadata: json.RawMessage(`{"p":"<>"}`), Extra: map[string]json.RawMessage{"x<": json.RawMessage(`"&&"`)}},
	}
	for i, c := range contents {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		stored, err := MarshalStored(c)
		if err != nil {
			t.Fatal(err)
		}
		bound, ok := c.EncodedSizeBound()
		if !ok || bound < len(b) || bound < len(stored) {
			t.Errorf("content %d: bound %d (ok %v) below the encoded size %d or the stored size %d", i, bound, ok, len(b), len(stored))
		}
	}
	if _, ok := (&Content{Metadata: map[string]any{"k": "v"}}).EncodedSizeBound(); ok {
		t.Error("content with metadata got a bound; its values can be anything")
	}
}
