package message

import (
	"encoding/json"
	"testing"
)

// TestMarshalStoredTextShape: content of text parts only is encoded without
// maps, to the same bytes as the general encoding.
func TestMarshalStoredTextShape(t *testing.T) {
	for _, c := range []Content{
		{Parts: []Part{{Type: PartText, Text: "plain"}}},
		{Parts: []Part{{Type: PartText, Text: `<b>&"quoted"</b>` + "\n\u2028"}, {Type: PartText, Text: ""}}},
	} {
		if _, ok := c.storedText(); !ok {
			t.Fatalf("%+v: not taken as text-only content", c)
		}
		got, err := MarshalStored(c)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(c.storedFields())
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("text shape %s, general encoding %s", got, want)
		}
	}
	for _, c := range []Content{
		{},
		{Parts: []Part{{Type: PartText, Text: "x"}}, Metadata: map[string]any{"k": 1}},
		{Parts: []Part{{Type: PartText, Text: "x", Extra: map[string]json.RawMessage{"k": json.RawMessage(`1`)}}}},
		{Parts: []Part{{Type: PartReasoning, Reasoning: "x"}}},
	} {
		if _, ok := c.storedText(); ok {
			t.Fatalf("%+v: taken as text-only content", c)
		}
	}
}
