package message_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
)

// Mastra's syntax: a bare value is $eq, several keys are AND-ed, operator
// objects may hold several operators; numbers of any Go type are float64.
func TestParseFilterShapes(t *testing.T) {
	f, err := message.ParseFilter(map[string]any{"b": 1, "a": map[string]any{"$gte": int64(2), "$lt": float32(5)}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"$and":[{"a":{"$gte":2}},{"a":{"$lt":5}},{"b":{"$eq":1}}]}`
	if f.String() != want {
		t.Fatalf("got %s, want %s", f, want)
	}
	if f.All[2].Value != 1.0 {
		t.Fatalf("value %#v", f.All[2].Value)
	}
	if z, err := message.ParseFilter(nil); err != nil || !z.IsZero() || !z.Match(nil) {
		t.Fatalf("nil filter: %v %v", z, err)
	}
}

// Every malformed filter is ErrInvalidArgument, naming what is wrong.
func TestParseFilterErrors(t *testing.T) {
	many := map[string]any{}
	for i := range message.MaxFilterConditions + 1 {
		many["k"+strings.Repeat("x", i)] = 1
	}
	deep := map[string]any{"a": 1}
	for range message.MaxFilterDepth + 1 {
		deep = map[string]any{"$and": []any{deep}}
	}
	for _, raw := range []map[string]any{
		{"$where": "1"},
		{"a": map[string]any{"$regex": "x"}},
		{"a": map[string]any{}},
		{"a-b": 1},
		{"a..b": 1},
		{"__proto__": 1},
		{"a": []any{1}},
		{"a": map[string]any{"$in": "x"}},
		{"a": map[string]any{"$in": []any{[]any{}}}},
		{"a": map[string]any{"$exists": 1}},
		{"a": map[string]any{"$gt": "x"}},
		{"a": map[string]any{"$gt": nil}},
		{"a": map[string]any{"$gt": "2026-02-30T00:00:00Z"}},
		{"a": map[string]any{"$lt": time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}},
		{"a": map[string]any{"$gte": time.Date(1, 1, 1, 0, 0, 0, 0, time.FixedZone("", 60))}},
		{"a": time.Now()},
		{"$or": []any{}},
		{"$or": []any{map[string]any{}}},
		{"$and": "x"},
		{"a": "bad\x00string"},
		many,
		deep,
	} {
		_, err := message.ParseFilter(raw)
		if !errors.Is(err, memerr.ErrInvalidArgument) {
			t.Errorf("%v: %v", raw, err)
		}
	}
	if _, err := message.ParseFilterJSON(`{"a":`); !errors.Is(err, memerr.ErrInvalidArgument) {
		t.Errorf("bad JSON: %v", err)
	}
	if err := (message.Filter{Op: message.OpEq, Key: "a", Value: []string{}}).Validate(); !errors.Is(err, memerr.ErrInvalidArgument) {
		t.Errorf("hand-built: %v", err)
	}
}

// A filter survives a JSON round trip in Mastra's syntax, times included.
func TestFilterJSONRoundTrip(t *testing.T) {
	in, err := message.ParseFilter(map[string]any{"at": map[string]any{"$gte": time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)},
		"$or": []any{map[string]any{"p": nil}, map[string]any{"q": map[string]any{"$nin": []any{"x", 2.5, true}}}}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(struct{ F message.Filter }{in})
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ F message.Filter }
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.F.String() != in.String() {
		t.Fatalf("round trip: %s, want %s", out.F, in)
	}
	if _, isTime := out.F.All[1].Value.(time.Time); !isTime {
		t.Fatalf("time operand came back as %T", out.F.All[1].Value)
	}
	if err := json.Unmarshal([]byte(`{"F":{"a":{"$bad":1}}}`), &out); !errors.Is(err, memerr.ErrInvalidArgument) {
		t.Fatalf("bad filter: %v", err)
	}
}

// Match: type-exact equality, null distinct from missing, $ne/$nin match a
// missing key, ranges only on numbers and RFC 3339 times (milliseconds),
// nested paths, and values as JSON decoding or Go code leave them.
func TestFilterMatch(t *testing.T) {
	var fromJSON map[string]any
	if err := json.Unmarshal([]byte(`{"s":"a","n":2,"z":null,"at":"2024-01-01T10:00:00.0004Z","o":{"k":true},"arr":[1]}`), &fromJSON); err != nil {
		t.Fatal(err)
	}
	goValues := map[string]any{"s": "a", "n": int32(2), "z": nil, "at": time.Date(2024, 1, 1, 10, 0, 0, 400_000, time.UTC),
		"o": map[string]any{"k": true}, "arr": []any{1}}
	cases := []struct {
		filter string
		want   bool
	}{
		{`{"s":"a"}`, true},
		{`{"s":{"$ne":"a"}}`, false},
		{`{"missing":{"$ne":"a"}}`, true},
		{`{"missing":{"$nin":["a"]}}`, true},
		{`{"missing":{"$in":["a",null]}}`, false},
		{`{"z":null}`, true},
		{`{"missing":null}`, false},
		{`{"z":{"$exists":true}}`, true},
		{`{"n":"2"}`, false},
		{`{"n":2}`, true},
		{`{"n":{"$gt":1,"$lte":2}}`, true},
		{`{"s":{"$gt":1}}`, false},
		{`{"o.k":true}`, true},
		{`{"o":{"$exists":true}}`, true},
		{`{"arr":1}`, false},
		{`{"arr":{"$exists":true}}`, true},
		{`{"$or":[{"s":"b"},{"n":2}]}`, true},
		{`{"$and":[{"s":"a"},{"n":3}]}`, false},
	}
	for _, c := range cases {
		f, err := message.ParseFilterJSON(c.filter)
		if err != nil {
			t.Fatal(err)
		}
		for name, md := range map[string]map[string]any{"json": fromJSON, "go": goValues} {
			if got := f.Match(md); got != c.want {
				t.Errorf("%s on %s values: %v, want %v", c.filter, name, got, c.want)
			}
		}
	}
	at := func(op string, ts time.Time) message.Filter {
		f, err := message.ParseFilter(map[string]any{"at": map[string]any{op: ts}})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	if f, err := message.ParseFilterJSON(`{"at":{"$lt":"2024-01-01T11:00:00+01:00"}}`); err != nil || f.Match(fromJSON) {
		t.Errorf("an ISO string operand compares as a time: %v %v", f, err)
	}
	same := time.Date(2024, 1, 1, 10, 0, 0, 0, time.UTC) // .0004 s rounds to the same millisecond
	for name, md := range map[string]map[string]any{"json": fromJSON, "go": goValues} {
		if !at("$gte", same).Match(md) || !at("$lte", same).Match(md) || at("$gt", same).Match(md) {
			t.Errorf("%s: times compare at millisecond precision", name)
		}
	}
}

// ParseFilterTime accepts what time.Parse reads as RFC 3339, less the year
// 0, offsets beyond ±23:59 (which time.Parse reads too) and instants
// outside the years 0001 to 9999 in UTC; day validity is checked for every
// month of years at each leap-year rule.
func TestParseFilterTime(t *testing.T) {
	check := func(s string, wantOK bool) {
		t.Helper()
		if _, ok := message.ParseFilterTime(s); ok != wantOK {
			t.Errorf("ParseFilterTime(%q) = %v, want %v", s, ok, wantOK)
		}
	}
	for _, y := range []int{0, 1, 4, 100, 400, 1900, 2000, 2023, 2024, 2100, 9996, 9999} {
		for m := 0; m <= 13; m++ {
			for d := 0; d <= 32; d++ {
				s := fmt.Sprintf("%04d-%02d-%02dT00:00:00Z", y, m, d)
				_, err := time.Parse(time.RFC3339, s)
				check(s, err == nil && y > 0)
			}
		}
	}
	for _, c := range []struct {
		s  string
		ok bool
	}{
		{"2026-01-01T23:59:59.123456789+23:59", true},
		{"2026-01-01T00:00:00-00:00", true},
		{"2026-01-01T00:00:00+24:00", false},
		{"2026-01-01T00:00:00+00:60", false},
		{"2026-01-01T00:00:00+99:00", false},
		{"2026-01-01T24:00:00Z", false},
		{"2026-01-01T00:60:00Z", false},
		{"2026-01-01T00:00:60Z", false},
		{"2026-01-01T00:00:00.1234567891Z", false},
		{"2026-01-01T00:00:00.Z", false},
		{"2026-01-01t00:00:00z", false},
		{"2026-01-01T00:00:00Z\n", false},
		{"2026-01-01T00:00:00", false},
		{"0001-01-01T00:00:00-23:59", true},
		{"0001-01-01T00:00:00+00:01", false}, // the year 0 in UTC
		{"9999-12-31T23:59:59.9994999Z", true},
		{"9999-12-31T23:59:59.9995Z", false}, // rounds into the year 10000
	} {
		check(c.s, c.ok)
	}
}
