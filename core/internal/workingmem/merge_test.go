package workingmem

import (
	"reflect"
	"testing"
)

func TestMergeDeepMergesWithoutTouchingItsInputs(t *testing.T) {
	newBase := func() map[string]any {
		return map[string]any{"about": map[string]any{"name": "Jordan", "location": "SF"}, "tags": []any{"a", "b"}, "n": 1}
	}
	newPatch := func() map[string]any {
		return map[string]any{
			"about": map[string]any{"location": nil, "job": "dev"}, // objects merge, null deletes
			"tags":  []any{"c"},                                    // arrays replace
			"n":     nil,                                           // null deletes at the top
			"pet":   map[string]any{"name": "Rex", "age": nil},     // nulls dropped in new branches
			"gone":  nil,                                           // deleting what is not there is harmless
		}
	}
	want := map[string]any{"about": map[string]any{"name": "Jordan", "job": "dev"}, "tags": []any{"c"}, "pet": map[string]any{"name": "Rex"}}
	base, patch := newBase(), newPatch()
	if got := merge(base, patch); !reflect.DeepEqual(got, want) {
		t.Fatalf("merge = %v, want %v", got, want)
	}
	if !reflect.DeepEqual(base, newBase()) || !reflect.DeepEqual(patch, newPatch()) {
		t.Fatalf("merge modified its inputs: %v %v", base, patch)
	}
	if got := merge(nil, map[string]any{"a": 1}); !reflect.DeepEqual(got, map[string]any{"a": 1}) {
		t.Fatalf("merge into nil = %v", got)
	}
}

func TestDecodeJSONKeepsNumbersAndRefusesTrailingData(t *testing.T) {
	v, err := DecodeJSON(` {"n":12345678901234567890} `)
	if err != nil {
		t.Fatal(err)
	}
	s, err := encodeJSON(v)
	if err != nil || s != `{"n":12345678901234567890}` {
		t.Fatalf("round trip = %s, %v", s, err)
	}
	for _, bad := range []string{`{"a":1} {"b":2}`, `{"a":1}x`, `{"a":`, ``} {
		if _, err := DecodeJSON(bad); err == nil {
			t.Errorf("DecodeJSON(%q) succeeded", bad)
		}
	}
	if s, _ := encodeJSON(map[string]any{"h": "<b>&</b>"}); s != `{"h":"<b>&</b>"}` {
		t.Fatalf("stored JSON is HTML-escaped: %s", s)
	}
}
