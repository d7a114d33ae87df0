package vectortest

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/agentmem/agentmem/core/internal/filtertime"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/vector"
)

// metadataRecords are records of resource "r", thread "t1", whose message
// metadata exercises types, explicit null, missing keys and times; a record
// of thread "t2" and one of resource "q" match most filters too, so that the
// scope (AND-ed with the filter, as Mastra's semanticRecall.filter is)
// shows.
func metadataRecords() []vector.Record {
	mds := []map[string]any{
		{"projectId": "a", "n": 1, "flag": true, "at": "2024-01-01T10:00:00Z"},
		{"projectId": "b", "n": 2.5, "flag": false, "at": "2024-01-02T10:00:00.000+02:00"},
		{"projectId": "a", "n": "3", "note": nil, "tags": []any{"x"}},
		nil,
		{"projectId": nil, "n": 10, "at": "not a time"},
	}
	var recs []vector.Record
	for i, md := range mds {
		r := Rec(fmt.Sprintf("M%d", i+1), "t1", "r", Corpus[i])
		r.Meta.Metadata = md
		recs = append(recs, r)
	}
	other := Rec("T2", "t2", "r", Corpus[5])
	other.Meta.Metadata = map[string]any{"projectId": "a", "n": 1, "flag": true}
	q := Rec("Q1", "t1", "q", Corpus[0])
	q.Meta.Metadata = map[string]any{"projectId": "a", "n": 1, "flag": true}
	return append(recs, other, q)
}

// metadataCases mirror Mastra's vector filter operators; want lists the
// message ids of thread t1 of resource r that match.
var metadataCases = []struct {
	filter map[string]any
	want   []string
}{
	{map[string]any{"projectId": "a"}, []string{"M1", "M3"}},
	{map[string]any{"projectId": map[string]any{"$ne": "a"}}, []string{"M2", "M4", "M5"}},
	{map[string]any{"projectId": nil}, []string{"M5"}},
	{map[string]any{"projectId": map[string]any{"$exists": false}}, []string{"M4"}},
	{map[string]any{"projectId": map[string]any{"$in": []any{"b", nil}}}, []string{"M2", "M5"}},
	{map[string]any{"projectId": map[string]any{"$nin": []any{"a", "b"}}}, []string{"M4", "M5"}},
	{map[string]any{"n": 1}, []string{"M1"}},
	{map[string]any{"n": "3"}, []string{"M3"}},
	{map[string]any{"n": map[string]any{"$gt": 1}}, []string{"M2", "M5"}},
	{map[string]any{"n": map[string]any{"$lte": 2.5, "$gte": 1}}, []string{"M1", "M2"}},
	{map[string]any{"flag": false}, []string{"M2"}},
	{map[string]any{"flag": map[string]any{"$ne": true}}, []string{"M2", "M3", "M4", "M5"}},
	{map[string]any{"at": map[string]any{"$gt": time.Date(2024, 1, 1, 9, 0, 0, 0, time.UTC)}}, []string{"M1", "M2"}},
	{map[string]any{"at": map[string]any{"$lt": time.Date(2024, 1, 2, 8, 0, 0, 0, time.UTC)}}, []string{"M1"}},
	{map[string]any{"tags": map[string]any{"$exists": true}}, []string{"M3"}},
	{map[string]any{"note": nil}, []string{"M3"}},
	{map[string]any{"never": "written"}, nil},
	{map[string]any{"$or": []any{map[string]any{"projectId": "b"}, map[string]any{"n": 10}}}, []string{"M2", "M5"}},
	{map[string]any{"projectId": "a", "$or": []any{map[string]any{"flag": true}, map[string]any{"note": nil}}}, []string{"M1", "M3"}},
}

func mustFilter(h *H, raw map[string]any) message.Filter {
	h.T.Helper()
	f, err := message.ParseFilter(raw)
	if err != nil {
		h.T.Fatalf("%v: %v", raw, err)
	}
	return f
}

func messageIDs(hits []vector.Hit) []string {
	out := make([]string, 0, len(hits))
	for _, h := range hits {
		out = append(out, h.Meta.MessageID)
	}
	slices.Sort(out)
	return out
}

// Filtering by message metadata (Mastra's semanticRecall.filter) keeps
// exactly the matching records of the scope, in every supported mode. Every
// store honours these operators (ErrUnsupported is for what lies beyond
// them, such as a string a store's query language cannot carry).
func testMetadataFilter(h *H) {
	h.Upsert(metadataRecords()...)
	for _, mode := range h.Modes {
		for _, c := range metadataCases {
			f := mustFilter(h, c.filter)
			q := vector.Query{Text: "database invoice kubernetes flight sourdough", TopK: 100, Mode: mode, Alpha: 0.5,
				Filter: vector.Filter{ResourceID: "r", ThreadID: "t1", Metadata: f}}
			hits, err := h.QueryErr(q)
			if err != nil {
				h.T.Fatalf("%s %s: %v", mode, f, err)
			}
			want(h, mode+" "+f.String(), messageIDs(hits), c.want)
		}
	}
	hits := h.Query(vector.Query{Text: Corpus[0], TopK: 1, Filter: vector.Filter{ResourceID: "r", ThreadID: "t1",
		Metadata: mustFilter(h, map[string]any{"projectId": "a", "flag": true})}})
	if len(hits) != 1 || hits[0].Meta.Metadata["projectId"] != "a" || hits[0].Meta.Metadata["flag"] != true {
		h.T.Fatalf("hit metadata: %+v", hits)
	}
}

// A filter on keys that only another resource's records hold (in
// Weaviate, properties of the class that no record of this tenant has a
// value of) matches none of this resource's records, and its negation all
// of them.
func testMetadataFilterOtherResourceKeys(h *H) {
	mine := Rec("R1", "t1", "plain", Corpus[0])
	mine.Meta.Metadata = map[string]any{"k": "v"}
	theirs := Rec("O1", "t9", "other", Corpus[1])
	theirs.Meta.Metadata = map[string]any{"only": "x", "count": 3, "on": true, "at": "2024-01-01T10:00:00Z"}
	h.Upsert(mine, theirs)
	for _, mode := range h.Modes {
		for _, c := range []struct {
			filter map[string]any
			want   []string
		}{
			{map[string]any{"only": "x"}, nil},
			{map[string]any{"count": map[string]any{"$gte": 1}}, nil},
			{map[string]any{"on": true}, nil},
			{map[string]any{"at": map[string]any{"$gt": "2023-01-01T00:00:00Z"}}, nil},
			{map[string]any{"only": map[string]any{"$ne": "x"}}, []string{"R1"}},
			{map[string]any{"$or": []any{map[string]any{"count": 3}, map[string]any{"k": "v"}}}, []string{"R1"}},
		} {
			f := mustFilter(h, c.filter)
			hits, err := h.QueryErr(vector.Query{Text: Corpus[0], TopK: 10, Mode: mode, Alpha: 0.5,
				Filter: vector.Filter{ResourceID: "plain", Metadata: f}})
			if err != nil {
				h.T.Fatalf("%s %s: %v", mode, f, err)
			}
			want(h, mode+" "+f.String(), messageIDs(hits), c.want)
		}
	}
}

// A time operand matches only stored strings message.ParseFilterTime
// accepts, compared in milliseconds rounded from the stored nanoseconds; a
// value that is no valid time never matches and never fails the query or
// the write that stored it.
func testMetadataFilterTimes(h *H) {
	var recs []vector.Record
	for i, v := range filtertime.Values {
		r := Rec(v.ID, "t1", "r", Corpus[i%len(Corpus)])
		r.Meta.Metadata = map[string]any{filtertime.Key: v.Value}
		recs = append(recs, r)
	}
	h.Upsert(recs...)
	for _, mode := range h.Modes {
		for _, c := range filtertime.Cases {
			f := mustFilter(h, c.Filter)
			hits, err := h.QueryErr(vector.Query{Text: "database invoice kubernetes flight sourdough cat", TopK: 100, Mode: mode,
				Alpha: 0.5, Filter: vector.Filter{ResourceID: "r", ThreadID: "t1", Metadata: f}})
			if err != nil {
				h.T.Fatalf("%s %s: %v", mode, f, err)
			}
			want(h, mode+" "+f.String(), messageIDs(hits), c.Want)
		}
	}
}

// A filter keeps the TopK best matching records even when many records
// that do not match score higher.
func testMetadataFilterTopK(h *H) {
	var recs []vector.Record
	for i := range 150 {
		r := Rec(fmt.Sprintf("noise%d", i), "t1", "r", fmt.Sprintf("%s %d", Corpus[4], i))
		r.Meta.Metadata = map[string]any{"kind": "noise"}
		recs = append(recs, r)
	}
	needle := Rec("needle", "t1", "r", "sourdough notes about the weather")
	needle.Meta.Metadata = map[string]any{"kind": "needle"}
	h.Upsert(append(recs, needle)...)
	for _, mode := range h.Modes {
		hits, err := h.QueryErr(vector.Query{Text: Corpus[4], TopK: 1, Mode: mode, Alpha: 0.5,
			Filter: vector.Filter{ResourceID: "r", Metadata: mustFilter(h, map[string]any{"kind": "needle"})}})
		if err != nil {
			h.T.Fatalf("%s: %v", mode, err)
		}
		want(h, mode+" needle", messageIDs(hits), []string{"needle"})
	}
}

// An invalid filter fails with ErrInvalidArgument and returns no hits.
func testMetadataFilterInvalid(h *H) {
	h.Upsert(metadataRecords()...)
	for _, f := range []message.Filter{
		{Op: "$regex", Key: "projectId", Value: "a"},
		{Op: message.OpEq, Key: "bad key", Value: "a"},
		{Op: message.OpGt, Key: "n", Value: true},
	} {
		hits, err := h.QueryErr(vector.Query{Text: Corpus[0], TopK: 10, Filter: vector.Filter{ResourceID: "r", Metadata: f}})
		if !errors.Is(err, memerr.ErrInvalidArgument) || len(hits) != 0 {
			h.T.Fatalf("%#v: %d hits, err %v", f, len(hits), err)
		}
	}
}
