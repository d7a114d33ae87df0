package storetest

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
)

func testThreadRoundTrip(t *testing.T, s *store.Checked) {
	in := store.Thread{ID: "1346362547862769664", ResourceID: "532374164040974346", Title: "odd ids",
		Metadata:  map[string]any{"k": "v", "n": float64(3), "nested": map[string]any{"a": true}},
		CreatedAt: T(1), UpdatedAt: T(2)}
	if _, err := s.SaveThread(ctx(), in); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetThread(ctx(), in.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != in.ID || got.ResourceID != in.ResourceID || got.Title != in.Title ||
		!got.CreatedAt.Equal(in.CreatedAt) || !got.UpdatedAt.Equal(in.UpdatedAt) ||
		!reflect.DeepEqual(got.Metadata, in.Metadata) || got.Boundary != nil {
		t.Fatalf("round trip: got %+v, want %+v", got, in)
	}
}

func testThreadMissing(t *testing.T, s *store.Checked) {
	_, err := s.GetThread(ctx(), "non-existent")
	wantCode(t, err, memerr.ErrThreadNotFound)
	_, err = s.SaveThread(ctx(), store.Thread{ID: "", ResourceID: "r"})
	wantCode(t, err, memerr.ErrMissingThreadID)
	_, err = s.SaveThread(ctx(), store.Thread{ID: "t", ResourceID: " "})
	wantCode(t, err, memerr.ErrMissingResourceID)
}

func testSaveThreadUpsert(t *testing.T, s *store.Checked) {
	mustThread(t, s, "t1", "r1")
	if _, err := s.AdvanceBoundary(ctx(), "t1", "r1", store.Boundary{CreatedAt: T(5), MessageIDs: []string{"m"}, MaxTokens: 10, AtMaxRemoveTokens: 2}); err != nil {
		t.Fatal(err)
	}
	up, err := s.SaveThread(ctx(), store.Thread{ID: "t1", ResourceID: "r1", Title: "renamed", CreatedAt: T(9), UpdatedAt: T(9)})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := s.GetThread(ctx(), "t1")
	if got.Title != "renamed" || !got.CreatedAt.Equal(T(0)) || got.Boundary == nil || !got.Boundary.CreatedAt.Equal(T(5)) {
		t.Fatalf("upsert kept wrong fields: %+v (returned %+v)", got, up)
	}
	_, err = s.SaveThread(ctx(), store.Thread{ID: "t1", ResourceID: "other"})
	wantCode(t, err, memerr.ErrResourceMismatch)
}

func testUpdateThread(t *testing.T, s *store.Checked) {
	_, err := s.SaveThread(ctx(), store.Thread{ID: "t1", ResourceID: "r1", Title: "Keep", Metadata: map[string]any{"key": "value", "gone": "x"}, CreatedAt: T(0), UpdatedAt: T(0)})
	if err != nil {
		t.Fatal(err)
	}
	title := "Updated Title"
	up, err := s.UpdateThread(ctx(), "t1", &title, map[string]any{"newKey": "newValue", "gone": nil})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"key": "value", "newKey": "newValue"}
	if up.Title != title || !reflect.DeepEqual(up.Metadata, want) || !up.UpdatedAt.After(T(0)) {
		t.Fatalf("update = %+v", up)
	}
	got, _ := s.GetThread(ctx(), "t1")
	if got.Title != title || !reflect.DeepEqual(got.Metadata, want) || !got.UpdatedAt.Equal(up.UpdatedAt) {
		t.Fatalf("get after update = %+v, returned %+v", got, up)
	}
	// Omitted title is untouched.
	got2, err := s.UpdateThread(ctx(), "t1", nil, map[string]any{"x": float64(1)})
	if err != nil || got2.Title != title || got2.Metadata["x"] != float64(1) {
		t.Fatalf("partial update = %+v, %v", got2, err)
	}
	_, err = s.UpdateThread(ctx(), "missing", &title, nil)
	wantCode(t, err, memerr.ErrThreadNotFound)
}

// testMetadataKeepsNoCallerValue: a store keeps what metadata held when it
// was written, typed slices and maps too: a caller that changes its value
// afterwards (core cuts a move record's slice in place) changes nothing
// stored.
func testMetadataKeepsNoCallerValue(t *testing.T, s *store.Checked) {
	ids, nums := []string{"a", "b"}, map[string]int{"x": 1}
	if _, err := s.SaveThread(ctx(), store.Thread{ID: "t1", ResourceID: "r1", Metadata: map[string]any{"ids": ids},
		CreatedAt: T(0), UpdatedAt: T(0)}); err != nil {
		t.Fatal(err)
	}
	later := []string{"c", "d"}
	if _, err := s.UpdateThread(ctx(), "t1", nil, map[string]any{"later": later, "nums": nums}); err != nil {
		t.Fatal(err)
	}
	m := msg("m1", "t1", "r1", "x", T(1))
	tags := []string{"e", "f"}
	m.Content.Metadata = map[string]any{"tags": tags}
	mustSave(t, s, m)
	ids[0], later[0], nums["x"], tags[0] = "changed", "changed", 2, "changed"
	th, err := s.GetThread(ctx(), "t1")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(th.Metadata); got != "map[ids:[a b] later:[c d] nums:map[x:1]]" {
		t.Fatalf("thread metadata after the caller changed its values: %s", got)
	}
	got, err := s.GetMessages(ctx(), []string{"m1"})
	if err != nil || len(got) != 1 || fmt.Sprint(got[0].Content.Metadata) != "map[tags:[e f]]" {
		t.Fatalf("message metadata after the caller changed its values: %v, %v", got, err)
	}
}

func testDeleteThreadCascades(t *testing.T, s *store.Checked) {
	mustThread(t, s, "t1", "r1")
	mustThread(t, s, "t2", "r1")
	mustSave(t, s, msg("m1", "t1", "r1", "a", T(1)), msg("m2", "t1", "r1", "b", T(2)), msg("m3", "t2", "r1", "c", T(3)))
	if err := s.DeleteThread(ctx(), "t1"); err != nil {
		t.Fatal(err)
	}
	_, err := s.GetThread(ctx(), "t1")
	wantCode(t, err, memerr.ErrThreadNotFound)
	p := list(t, s, store.MessageQuery{ThreadID: "t1", PerPage: store.PerPageAll})
	eq(t, "messages of deleted thread", ids(p.Messages), nil)
	got, _ := s.GetMessages(ctx(), []string{"m1", "m2", "m3"})
	eq(t, "remaining messages", ids(got), []string{"m3"})
	if err := s.DeleteThread(ctx(), "t1"); err != nil {
		t.Fatalf("deleting a missing thread: %v", err)
	}
}

func testListThreadsPaging(t *testing.T, s *store.Checked) {
	for i := 0; i < 17; i++ {
		_, err := s.SaveThread(ctx(), store.Thread{ID: fmt.Sprintf("t%02d", i), ResourceID: "r1", CreatedAt: T(i), UpdatedAt: T(i)})
		if err != nil {
			t.Fatal(err)
		}
	}
	mustThread(t, s, "other", "r2")
	p, err := s.ListThreads(ctx(), store.ThreadQuery{ResourceID: "r1", PerPage: 7})
	if err != nil || len(p.Threads) != 7 || p.Total != 17 || !p.HasMore || p.PerPage != 7 {
		t.Fatalf("page 0 = %d threads total %d more %v: %v", len(p.Threads), p.Total, p.HasMore, err)
	}
	if p.Threads[0].ID != "t16" {
		t.Fatalf("default order should be newest first, got %s", p.Threads[0].ID)
	}
	p, _ = s.ListThreads(ctx(), store.ThreadQuery{ResourceID: "r1", PerPage: 7, Page: 2})
	if len(p.Threads) != 3 || p.HasMore || p.Page != 2 {
		t.Fatalf("page 2 = %d threads more %v", len(p.Threads), p.HasMore)
	}
	p, _ = s.ListThreads(ctx(), store.ThreadQuery{ResourceID: "r2"})
	if len(p.Threads) != 1 || p.Total != 1 || p.PerPage != 100 || p.HasMore {
		t.Fatalf("single = %+v", p)
	}
	p, _ = s.ListThreads(ctx(), store.ThreadQuery{ResourceID: "nobody"})
	if len(p.Threads) != 0 || p.Total != 0 || p.HasMore {
		t.Fatalf("empty = %+v", p)
	}
}

func testListThreadsOrder(t *testing.T, s *store.Checked) {
	updated := []int{5, 1, 4, 2, 3}
	for i, u := range updated {
		_, err := s.SaveThread(ctx(), store.Thread{ID: fmt.Sprintf("t%d", i), ResourceID: "r", CreatedAt: T(i), UpdatedAt: T(u)})
		if err != nil {
			t.Fatal(err)
		}
	}
	get := func(q store.ThreadQuery) []string {
		q.ResourceID = "r"
		p, err := s.ListThreads(ctx(), q)
		if err != nil {
			t.Fatal(err)
		}
		return threadIDs(p.Threads)
	}
	eq(t, "default", get(store.ThreadQuery{}), []string{"t4", "t3", "t2", "t1", "t0"})
	eq(t, "updatedAt", get(store.ThreadQuery{OrderBy: "updatedAt"}), []string{"t0", "t2", "t4", "t3", "t1"})
	eq(t, "asc", get(store.ThreadQuery{Direction: store.Asc}), []string{"t0", "t1", "t2", "t3", "t4"})
	var paged []string
	for page := 0; page < 3; page++ {
		paged = append(paged, get(store.ThreadQuery{OrderBy: "updatedAt", PerPage: 2, Page: page})...)
	}
	eq(t, "pages", paged, get(store.ThreadQuery{OrderBy: "updatedAt"}))
}

// testListThreadsTieOrder: threads created at the same instant are ordered
// by id as bytes (Go's string order, SQLite's BINARY), not by a database's
// linguistic collation, in which "a" < "B" < "b".
func testListThreadsTieOrder(t *testing.T, s *store.Checked) {
	ids := []string{"b", "B", "a-1", "été", "a", "Z9", "_x", "a1"}
	for _, id := range ids {
		if _, err := s.SaveThread(ctx(), store.Thread{ID: id, ResourceID: "r", CreatedAt: T(1), UpdatedAt: T(1)}); err != nil {
			t.Fatal(err)
		}
	}
	asc := slices.Clone(ids)
	slices.Sort(asc)
	desc := slices.Clone(asc)
	slices.Reverse(desc)
	for _, c := range []struct {
		q    store.ThreadQuery
		want []string
	}{
		{store.ThreadQuery{ResourceID: "r", Direction: store.Asc}, asc},
		{store.ThreadQuery{ResourceID: "r"}, desc},
		{store.ThreadQuery{ResourceID: "r", OrderBy: "updatedAt", Direction: store.Asc}, asc},
	} {
		p, err := s.ListThreads(ctx(), c.q)
		if err != nil {
			t.Fatal(err)
		}
		eq(t, fmt.Sprintf("%s %s", c.q.OrderBy, c.q.Direction), threadIDs(p.Threads), c.want)
	}
}

func testListThreadsFilters(t *testing.T, s *store.Checked) {
	seed := []store.Thread{
		{ID: "t1", ResourceID: "r1", Metadata: map[string]any{"category": "support-filter", "priority": "high", "status": "open"}},
		{ID: "t2", ResourceID: "r1", Metadata: map[string]any{"category": "support-filter", "priority": "low", "status": "closed"}},
		{ID: "t3", ResourceID: "r2", Metadata: map[string]any{"category": "sales-filter", "priority": "high", "status": "open"}},
		{ID: "t4", ResourceID: "r2", Metadata: map[string]any{"category": "sales-filter", "priority": "medium", "n": float64(7), "ok": true}},
	}
	for i, th := range seed {
		th.CreatedAt, th.UpdatedAt = T(i), T(i)
		if _, err := s.SaveThread(ctx(), th); err != nil {
			t.Fatal(err)
		}
	}
	get := func(q store.ThreadQuery) []string {
		q.Direction = store.Asc
		p, err := s.ListThreads(ctx(), q)
		if err != nil {
			t.Fatal(err)
		}
		return threadIDs(p.Threads)
	}
	eq(t, "resource", get(store.ThreadQuery{ResourceID: "r1"}), []string{"t1", "t2"})
	eq(t, "category", get(store.ThreadQuery{Metadata: map[string]any{"category": "support-filter"}}), []string{"t1", "t2"})
	eq(t, "two keys", get(store.ThreadQuery{Metadata: map[string]any{"category": "support-filter", "priority": "high"}}), []string{"t1"})
	eq(t, "resource+keys", get(store.ThreadQuery{ResourceID: "r2", Metadata: map[string]any{"category": "sales-filter", "priority": "high"}}), []string{"t3"})
	eq(t, "missing key", get(store.ThreadQuery{Metadata: map[string]any{"status": "open"}}), []string{"t1", "t3"})
	eq(t, "none", get(store.ThreadQuery{Metadata: map[string]any{"category": "nonexistent"}}), nil)
	eq(t, "number", get(store.ThreadQuery{Metadata: map[string]any{"n": 7}}), []string{"t4"})
	eq(t, "bool", get(store.ThreadQuery{Metadata: map[string]any{"ok": true}}), []string{"t4"})
	p, err := s.ListThreads(ctx(), store.ThreadQuery{PerPage: store.PerPageAll})
	if err != nil || len(p.Threads) != 4 || p.HasMore || p.PerPage != store.PerPageAll {
		t.Fatalf("all = %+v, %v", p, err)
	}
}

func testListThreadsValidation(t *testing.T, s *store.Checked) {
	for _, q := range []store.ThreadQuery{
		{Page: -1}, {PerPage: -5}, {PerPage: store.PerPageAll, Page: 1},
		{Metadata: map[string]any{"bad-key": "x"}}, {Metadata: map[string]any{"__proto__": "x"}},
		{OrderBy: "title"}, {Direction: "sideways"},
	} {
		_, err := s.ListThreads(ctx(), q)
		wantCode(t, err, memerr.ErrInvalidArgument)
	}
}
