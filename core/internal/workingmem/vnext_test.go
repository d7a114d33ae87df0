package workingmem

import (
	"encoding/json"
	"testing"
)

func TestParseEditAppliesToStoredText(t *testing.T) {
	const tpl = "# User\n- Name:"
	cases := []struct {
		name, cur, args string
		resource        bool
		write           bool
		want            string
	}{
		{"first write", "", `{"newMemory":"- Name: Ann"}`, false, true, "- Name: Ann"},
		{"append", "a", `{"newMemory":"b"}`, false, true, "a\nb"},
		{"replace first only", "x x", `{"newMemory":"y","searchString":"x","updateReason":"clarify-existing-memory"}`, false, true, "y x"},
		{"missing search appends", "a", `{"newMemory":"b","searchString":"z","updateReason":"clarify-existing-memory"}`, false, true, "a\nb"},
		{"duplicate", "a\nb", `{"newMemory":"b"}`, false, false, "a\nb"},
		{"CRLF template copy removed", "a", `{"newMemory":"# User\r\n- Name:\r\nb"}`, false, true, "a\n\r\nb"},
		{"irrelevant replacement in thread scope", "a\nb", `{"newMemory":"c","searchString":"b","updateReason":"replace-irrelevant-memory"}`, false, true, "a\nc"},
	}
	for _, c := range cases {
		up, res := ParseEdit(tpl, c.resource, json.RawMessage(c.args))
		if up == nil {
			t.Fatalf("%s: refused: %+v", c.name, res)
		}
		next, write, _ := up(c.cur)
		if write != c.write || next != c.want {
			t.Fatalf("%s: got %q (write %v), want %q (write %v)", c.name, next, write, c.want, c.write)
		}
	}
	for _, args := range []string{
		`{"newMemory":"c","searchString":"b","updateReason":"replace-irrelevant-memory"}`, // resource scope
		`{"newMemory":"c","updateReason":"clarify-existing-memory"}`,
		`{"newMemory":"c","updateReason":"other"}`,
		`{"newMemory":5}`,
	} {
		if up, res := ParseEdit(tpl, true, json.RawMessage(args)); up != nil || res.Success {
			t.Fatalf("%s: accepted (%+v)", args, res)
		}
	}
}
