package message

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestIsPlaceholderToolName(t *testing.T) {
	for name, want := range map[string]bool{"": true, PlaceholderToolName: true, "unknown": true, "weather": false, "unknown_tool_2": false} {
		if got := IsPlaceholderToolName(name); got != want {
			t.Errorf("IsPlaceholderToolName(%q) = %v", name, got)
		}
	}
}

func TestNewToolCallID(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := NewToolCallID()
		if !strings.HasPrefix(id, "call_") || len(id) != len("call_")+32 || seen[id] {
			t.Fatalf("bad or repeated id %q", id)
		}
		seen[id] = true
	}
}

func TestCanonicalArgs(t *testing.T) {
	for in, want := range map[string]string{
		"":                    "",
		"  \n":                "",
		`{"city": "Paris"}`:   `{"city":"Paris"}`,
		`{"html":"<b>&</b>"}`: `{"html":"\u003cb\u003e\u0026\u003c/b\u003e"}`,
		`[1, 2]`:              `[1,2]`,
		`not json`:            `"not json"`,
		`{"broken":`:          `"{\"broken\":"`,
	} {
		got := CanonicalArgs(json.RawMessage(in))
		if string(got) != want {
			t.Errorf("CanonicalArgs(%q) = %q, want %q", in, got, want)
		}
		if want != "" && string(CanonicalArgs(got)) != string(got) {
			t.Errorf("CanonicalArgs is not idempotent on %q", got)
		}
	}
}
