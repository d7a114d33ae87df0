package storetest

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
)

func testResources(t *testing.T, s *store.Checked) {
	_, err := s.GetResource(ctx(), "missing")
	wantCode(t, err, memerr.ErrNotFound)
	r, err := s.UpdateResource(ctx(), "new", map[string]any{"a": "1"})
	if err != nil || r.ID != "new" || r.Metadata["a"] != "1" {
		t.Fatalf("create = %+v %v", r, err)
	}
	if _, err := s.PutWorkingMemory(ctx(), store.ScopeResource, "new", strings.Repeat("w", 12_000), 0); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond)
	r2, err := s.UpdateResource(ctx(), "new", map[string]any{"b": "2"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r2.Metadata, map[string]any{"a": "1", "b": "2"}) || len(r2.WorkingMemory) != 12_000 || !r2.UpdatedAt.After(r.UpdatedAt) {
		t.Fatalf("merge = %+v", r2)
	}
	got, _ := s.GetResource(ctx(), "new")
	if len(got.WorkingMemory) != 12_000 || got.Metadata["b"] != "2" {
		t.Fatalf("get = %+v", got)
	}
}

// testListResources: resources with a row (metadata or working memory) are
// listed in byte order of their ids, in keyset pages, each as GetResource
// returns it; a resource that only owns threads has no row.
func testListResources(t *testing.T, s *store.Checked) {
	page, err := s.ListResources(ctx(), store.ResourceQuery{})
	if err != nil || len(page.Resources) != 0 || page.HasMore {
		t.Fatalf("empty store = %+v %v", page, err)
	}
	ids := []string{"b", "B", "a-1", "été", "a", "Z9", "user/42"}
	for i, id := range ids {
		var err error
		if i%2 == 0 {
			_, err = s.UpdateResource(ctx(), id, map[string]any{"n": float64(i)})
		} else {
			_, err = s.PutWorkingMemory(ctx(), store.ScopeResource, id, "wm of "+id, 0)
		}
		if err != nil {
			t.Fatalf("create %q: %v", id, err)
		}
	}
	mustThread(t, s, "only-thread", "thread-owner")
	want := slices.Clone(ids)
	slices.Sort(want)
	var got []string
	q := store.ResourceQuery{PerPage: 2}
	for pages := 0; ; pages++ {
		if pages > len(ids) {
			t.Fatalf("paging does not end: %v", got)
		}
		page, err := s.ListResources(ctx(), q)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Resources {
			one, err := s.GetResource(ctx(), r.ID)
			if err != nil || !reflect.DeepEqual(one, r) {
				t.Fatalf("listed %+v, GetResource %+v %v", r, one, err)
			}
			got = append(got, r.ID)
		}
		if !page.HasMore {
			break
		}
		q.After = got[len(got)-1]
	}
	if !slices.Equal(got, want) {
		t.Fatalf("listed %q, want %q", got, want)
	}
	page, err = s.ListResources(ctx(), store.ResourceQuery{After: want[len(want)-1]})
	if err != nil || len(page.Resources) != 0 || page.HasMore {
		t.Fatalf("after the last = %+v %v", page, err)
	}
	for _, bad := range []store.ResourceQuery{{PerPage: -1}, {PerPage: store.MaxResourcePage + 1}, {After: "a\x00b"}, {After: "\xff"}} {
		_, err := s.ListResources(ctx(), bad)
		wantCode(t, err, memerr.ErrInvalidArgument)
	}
}

// testObservedResourceListed: resource-scoped observations give their
// resource a row, so a resource known only by its observations is listed
// (export walks ListResources); its working memory stays unwritten.
func testObservedResourceListed(t *testing.T, s *store.Checked) {
	putObs(t, s, store.ObservationRecord{Key: store.ObservationKey(store.ScopeResource, "", "observed"), Observations: "o"}, 0)
	page, err := s.ListResources(ctx(), store.ResourceQuery{})
	if err != nil || len(page.Resources) != 1 || page.Resources[0].ID != "observed" {
		t.Fatalf("ListResources = %+v %v", page, err)
	}
	wm, err := s.GetWorkingMemory(ctx(), store.ScopeResource, "observed")
	if err != nil || wm.Version != 0 || wm.Data != "" {
		t.Fatalf("working memory = %+v %v", wm, err)
	}
	if _, err := s.PutWorkingMemory(ctx(), store.ScopeResource, "observed", "wm", 0); err != nil {
		t.Fatalf("first working memory write: %v", err)
	}
	putObs(t, s, store.ObservationRecord{Key: store.ObservationKey(store.ScopeResource, "", "observed"), Observations: "o2"}, 1)
	r, err := s.GetResource(ctx(), "observed")
	if err != nil || r.WorkingMemory != "wm" {
		t.Fatalf("resource after a second observation write = %+v %v", r, err)
	}
}
