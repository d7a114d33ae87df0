package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/internal/filtertime"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// filterCase is one metadata filter (Mastra's syntax) and the ids of thread
// A it keeps. Package vectortest checks the same semantics on vector
// stores; message.Filter.Match defines them.
type filterCase struct {
	filter map[string]any
	want   []string
}

// metadataFixture seeds thread A with messages whose metadata exercises
// types, explicit null, missing keys, nesting and times, and thread B with a
// message every filter below would match, so that thread scope shows.
func metadataFixture(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "rA")
	mustThread(t, s, "B", "rA")
	mds := []map[string]any{
		{"projectId": "a", "n": 1, "flag": true, "at": "2024-01-01T10:00:00Z", "nested": map[string]any{"k": "x"}},
		{"projectId": "b", "n": 2.5, "flag": false, "at": "2024-01-02T10:00:00.000+02:00"},
		{"projectId": "a", "n": "3", "note": nil, "tags": []any{"x"}},
		nil,
		{"projectId": nil, "n": 10, "at": "not a time"},
	}
	for i, md := range mds {
		m := msg(fmt.Sprintf("M%d", i+1), "A", "rA", fmt.Sprintf("Message %d", i+1), T(i+1))
		m.Content.Metadata = md
		mustSave(t, s, m)
	}
	b := msg("B1", "B", "rA", "other thread", T(3))
	b.Content.Metadata = map[string]any{"projectId": "a", "n": 1, "flag": true}
	mustSave(t, s, b)
}

// metadataFilterCases mirror Mastra's filter operators ($eq, $ne, $in,
// $nin, $exists, $and, $or, and the ranges on numbers and times).
var metadataFilterCases = []filterCase{
	{map[string]any{"projectId": "a"}, []string{"M1", "M3"}},
	{map[string]any{"projectId": map[string]any{"$eq": "a"}}, []string{"M1", "M3"}},
	{map[string]any{"projectId": map[string]any{"$ne": "a"}}, []string{"M2", "M4", "M5"}},
	{map[string]any{"projectId": nil}, []string{"M5"}},
	{map[string]any{"projectId": map[string]any{"$ne": nil}}, []string{"M1", "M2", "M3", "M4"}},
	{map[string]any{"projectId": map[string]any{"$exists": true}}, []string{"M1", "M2", "M3", "M5"}},
	{map[string]any{"projectId": map[string]any{"$exists": false}}, []string{"M4"}},
	{map[string]any{"projectId": map[string]any{"$in": []any{"a", "b"}}}, []string{"M1", "M2", "M3"}},
	{map[string]any{"projectId": map[string]any{"$in": []any{"b", nil}}}, []string{"M2", "M5"}},
	{map[string]any{"projectId": map[string]any{"$nin": []any{"a", "b"}}}, []string{"M4", "M5"}},
	{map[string]any{"n": 1}, []string{"M1"}},
	{map[string]any{"n": "3"}, []string{"M3"}},
	{map[string]any{"n": 3}, nil},
	{map[string]any{"n": map[string]any{"$gt": 1}}, []string{"M2", "M5"}},
	{map[string]any{"n": map[string]any{"$gte": 1}}, []string{"M1", "M2", "M5"}},
	{map[string]any{"n": map[string]any{"$lt": 10}}, []string{"M1", "M2"}},
	{map[string]any{"n": map[string]any{"$lte": 2.5, "$gt": 1}}, []string{"M2"}},
	{map[string]any{"flag": true}, []string{"M1"}},
	{map[string]any{"flag": false}, []string{"M2"}},
	{map[string]any{"flag": map[string]any{"$ne": true}}, []string{"M2", "M3", "M4", "M5"}},
	{map[string]any{"at": map[string]any{"$gt": time.Date(2024, 1, 1, 9, 0, 0, 0, time.UTC)}}, []string{"M1", "M2"}},
	{map[string]any{"at": map[string]any{"$lt": time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)}}, []string{"M1"}},
	{map[string]any{"at": map[string]any{"$gte": time.Date(2024, 1, 2, 8, 0, 0, 0, time.UTC)}}, []string{"M2"}},
	{map[string]any{"at": map[string]any{"$lte": time.Date(2024, 1, 2, 7, 59, 59, 999e6, time.UTC)}}, []string{"M1"}},
	{map[string]any{"nested.k": "x"}, []string{"M1"}},
	{map[string]any{"tags": map[string]any{"$exists": true}}, []string{"M3"}},
	{map[string]any{"tags": "x"}, nil},
	{map[string]any{"note": nil}, []string{"M3"}},
	{map[string]any{"$or": []any{map[string]any{"projectId": "b"}, map[string]any{"n": 10}}}, []string{"M2", "M5"}},
	{map[string]any{"$and": []any{map[string]any{"projectId": "a"}, map[string]any{"flag": true}}}, []string{"M1"}},
	{map[string]any{"projectId": "a", "n": map[string]any{"$exists": true}, "$or": []any{
		map[string]any{"flag": true}, map[string]any{"note": map[string]any{"$exists": true}}}}, []string{"M1", "M3"}},
}

func testMessagesMetadataFilter(t *testing.T, s *store.Checked) {
	metadataFixture(t, s)
	for _, c := range metadataFilterCases {
		f, err := message.ParseFilter(c.filter)
		if err != nil {
			t.Fatalf("%v: %v", c.filter, err)
		}
		p := list(t, s, store.MessageQuery{ThreadID: "A", PerPage: store.PerPageAll, IncludeTotal: true, Metadata: f})
		eq(t, f.String(), ids(p.Messages), c.want)
		if p.Total != len(c.want) {
			t.Fatalf("%s: total %d, want %d", f, p.Total, len(c.want))
		}
	}
}

// A time operand matches only stored strings message.ParseFilterTime
// accepts, compared in milliseconds rounded from the stored nanoseconds; a
// value that is no valid time (no such day, year 0, offset +99:00, a number)
// never matches and never fails the query.
func testMessagesMetadataFilterTimes(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "rA")
	for i, v := range filtertime.Values {
		m := msg(v.ID, "A", "rA", "at "+v.ID, T(i+1))
		m.Content.Metadata = map[string]any{filtertime.Key: v.Value}
		mustSave(t, s, m)
	}
	for _, c := range filtertime.Cases {
		f, err := message.ParseFilter(c.Filter)
		if err != nil {
			t.Fatalf("%v: %v", c.Filter, err)
		}
		p, err := s.ListMessages(ctx(), store.MessageQuery{ThreadID: "A", PerPage: store.PerPageAll, IncludeTotal: true, Metadata: f})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		got := ids(p.Messages)
		slices.Sort(got)
		eq(t, f.String(), got, c.Want)
		if p.Total != len(c.Want) {
			t.Fatalf("%s: total %d, want %d", f, p.Total, len(c.Want))
		}
	}
}

// The filter applies before paging and totals, as Mastra's filter.metadata
// does; Include windows are not filtered.
func testMessagesMetadataFilterPaging(t *testing.T, s *store.Checked) {
	metadataFixture(t, s)
	f, err := message.ParseFilter(map[string]any{"projectId": map[string]any{"$exists": true}})
	if err != nil {
		t.Fatal(err)
	}
	p := list(t, s, store.MessageQuery{ThreadID: "A", PerPage: 2, Page: 1, IncludeTotal: true, Metadata: f})
	eq(t, "page 1", ids(p.Messages), []string{"M3", "M5"})
	if p.Total != 4 || p.HasMore {
		t.Fatalf("total %d more %v", p.Total, p.HasMore)
	}
	p = list(t, s, store.MessageQuery{ThreadID: "A", PerPage: 1, Direction: store.Desc, Metadata: f})
	eq(t, "newest", ids(p.Messages), []string{"M5"})
	if !p.HasMore {
		t.Fatal("HasMore should be true")
	}
	none, _ := message.ParseFilter(map[string]any{"projectId": "zzz"})
	p = list(t, s, store.MessageQuery{ThreadID: "A", PerPage: store.PerPageAll, Metadata: none,
		Include: []store.Include{{ID: "M4"}}})
	if len(p.Messages) != 0 {
		t.Fatalf("listed %v", ids(p.Messages))
	}
	eq(t, "included", ids(p.Included), []string{"M4"})
	w, err := s.ListWindow(ctx(), store.MessageQuery{ThreadID: "A", PerPage: 10, Direction: store.Desc, Metadata: f},
		store.WindowFit{Encoding: "e", Fits: 1000, Keep: 1000})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "window", ids(w.Messages), []string{"M5", "M3", "M2", "M1"})
}

// A filter with an unknown operator or an invalid key or value fails with
// ErrInvalidArgument; it never lists unfiltered.
func testMessagesMetadataFilterInvalid(t *testing.T, s *store.Checked) {
	metadataFixture(t, s)
	bad := []message.Filter{
		{Op: "$regex", Key: "projectId", Value: "a"},
		{Op: message.OpEq, Key: "bad-key", Value: "a"},
		{Op: message.OpEq, Key: "n", Value: 1},
		{Op: message.OpGt, Key: "n", Value: "a"},
		{Op: message.OpOr},
		{Op: message.OpIn, Key: "n", Values: []any{map[string]any{}}},
	}
	for _, f := range bad {
		_, err := s.ListMessages(ctx(), store.MessageQuery{ThreadID: "A", PerPage: store.PerPageAll, Metadata: f})
		if err == nil {
			t.Fatalf("%#v: listed", f)
		}
		wantCode(t, err, memerr.ErrInvalidArgument)
	}
}
