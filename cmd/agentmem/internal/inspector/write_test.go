package inspector

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
)

// csrfFor reads the CSRF token off the thread page.
func (f *fixture) csrfFor(t *testing.T, h http.Handler) string {
	t.Helper()
	return csrfOf(t, get(h, threadURL(f.support.ID, 0)).Body.String())
}

func (f *fixture) resourceWM(t *testing.T) store.WorkingMemory {
	t.Helper()
	wm, err := f.store.GetWorkingMemory(bg, core.ScopeResource, "user-456")
	if err != nil {
		t.Fatal(err)
	}
	return wm
}

func TestReadOnlyRefusesWrites(t *testing.T) {
	eachStore(t, func(t *testing.T, f *fixture) {
		// A token-guarded inspector shows a CSRF token (its log-out form), so
		// the refusal is tested with an authenticated, otherwise valid request.
		h := f.handler(t, Options{Token: token})
		auth := []string{"Authorization", "Bearer " + token}
		page := get(h, threadURL(f.support.ID, 0), auth...).Body.String()
		csrf := csrfOf(t, page)
		before := f.resourceWM(t)
		w := post(h, "/thread/working-memory", url.Values{"csrf": {csrf}, "id": {f.support.ID}, "scope": {"resource"},
			"version": {itoa(int(before.Version))}, "data": {"overwritten"}}, auth...)
		wantStatus(t, w, http.StatusForbidden)
		wantContains(t, w.Body.String(), "read-only")
		wantStatus(t, post(h, "/thread/delete", url.Values{"csrf": {csrf}, "id": {f.support.ID}}, auth...), http.StatusForbidden)
		if after := f.resourceWM(t); after.Data != before.Data || after.Version != before.Version {
			t.Error("a read-only inspector changed working memory")
		}
		if _, err := f.store.GetThread(bg, f.support.ID); err != nil {
			t.Errorf("a read-only inspector deleted the thread: %v", err)
		}
		// Read-only pages offer no write forms.
		for _, action := range []string{`action="/thread/delete"`, `action="/thread/working-memory"`} {
			if strings.Contains(page, action) {
				t.Errorf("read-only page has %s", action)
			}
		}
	})
}

func TestCSRF(t *testing.T) {
	eachStore(t, func(t *testing.T, f *fixture) {
		h := f.handler(t, Options{Write: true})
		csrf := f.csrfFor(t, h)
		form := url.Values{"id": {f.support.ID}}
		wantStatus(t, post(h, "/thread/delete", form), http.StatusForbidden)
		form.Set("csrf", "0000")
		wantStatus(t, post(h, "/thread/delete", form), http.StatusForbidden)
		// The right token from another site is still refused.
		form.Set("csrf", csrf)
		wantStatus(t, post(h, "/thread/delete", form, "Sec-Fetch-Site", "cross-site"), http.StatusForbidden)
		wantStatus(t, post(h, "/thread/delete", form, "Origin", "http://evil.example"), http.StatusForbidden)
		if _, err := f.store.GetThread(bg, f.support.ID); err != nil {
			t.Fatalf("a refused request deleted the thread: %v", err)
		}
		// Same origin with the token: the thread, its messages and vectors go.
		w := post(h, "/thread/delete", form, "Origin", "http://127.0.0.1:7700", "Sec-Fetch-Site", "same-origin")
		wantStatus(t, w, http.StatusSeeOther)
		if _, err := f.store.GetThread(bg, f.support.ID); !errors.Is(err, core.ErrThreadNotFound) {
			t.Errorf("thread after delete: %v", err)
		}
		p, err := f.store.ListMessages(bg, store.MessageQuery{ThreadID: f.support.ID, IncludeTotal: true})
		if err != nil || p.Total != 0 {
			t.Errorf("messages after delete: %d, %v", p.Total, err)
		}
		vec := f.embedder.EmbedOne("peanut")
		hits, err := f.vectors.Query(bg, vector.IndexName(len(vec)), vector.Query{Vector: vec, TopK: 50, Filter: vector.Filter{ResourceID: "user-456", ThreadID: f.support.ID}})
		if err != nil || len(hits) != 0 {
			t.Errorf("vectors after delete: %d, %v", len(hits), err)
		}
	})
}

func TestEditWorkingMemory(t *testing.T) {
	eachStore(t, func(t *testing.T, f *fixture) {
		h := f.handler(t, Options{Write: true})
		csrf := f.csrfFor(t, h)
		cur := f.resourceWM(t)
		edit := func(scope string, version int64, data string) int {
			return post(h, "/thread/working-memory", url.Values{"csrf": {csrf}, "id": {f.support.ID}, "scope": {scope},
				"version": {itoa(int(version))}, "data": {data}}).Code
		}
		const text = "# About the user\n- **Name**: Ada\n- **Preferences**: tea, no peanuts\n"
		if code := edit("resource", cur.Version, text); code != http.StatusSeeOther {
			t.Fatalf("edit: %d", code)
		}
		got := f.resourceWM(t)
		if got.Data != text || got.Version != cur.Version+1 {
			t.Fatalf("after edit: %+v", got)
		}
		// An edit based on an old version is a conflict and changes nothing.
		if code := edit("resource", cur.Version, "stale"); code != http.StatusConflict {
			t.Errorf("stale edit: %d, want 409", code)
		}
		if f.resourceWM(t).Data != text {
			t.Error("a stale edit overwrote working memory")
		}
		// Thread scope writes the thread's own memory.
		if code := edit("thread", 0, "thread notes"); code != http.StatusSeeOther {
			t.Fatalf("thread edit: %d", code)
		}
		if wm, err := f.store.GetWorkingMemory(bg, core.ScopeThread, f.support.ID); err != nil || wm.Data != "thread notes" {
			t.Errorf("thread working memory %+v, %v", wm, err)
		}
		if code := edit("galaxy", 0, "x"); code != http.StatusBadRequest {
			t.Errorf("bad scope: %d", code)
		}
		if code := post(h, "/thread/working-memory", url.Values{"csrf": {csrf}, "id": {f.support.ID}, "scope": {"thread"}, "version": {"x"}}).Code; code != http.StatusBadRequest {
			t.Errorf("bad version: %d", code)
		}
	})
}

func TestEditWorkingMemorySchema(t *testing.T) {
	store := stores[0].open(t)
	f := newFixture(t, store)
	schema := []byte(`{"type":"object","properties":{"name":{"type":"string"}},"additionalProperties":false}`)
	mem, err := core.New(core.Options{Store: store, Config: core.Config{WorkingMemory: &core.WorkingMemoryConfig{Enabled: true, Schema: schema}}})
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Options{Memory: mem, Write: true})
	if err != nil {
		t.Fatal(err)
	}
	csrf := f.csrfFor(t, h)
	cur := f.resourceWM(t)
	form := url.Values{"csrf": {csrf}, "id": {f.support.ID}, "scope": {"resource"}, "version": {itoa(int(cur.Version))}}
	form.Set("data", `{"age": 3}`)
	wantStatus(t, post(h, "/thread/working-memory", form), http.StatusBadRequest)
	form.Set("data", `{"name": "Ada"}`)
	wantStatus(t, post(h, "/thread/working-memory", form), http.StatusSeeOther)
	if got := f.resourceWM(t); got.Data != `{"name": "Ada"}` {
		t.Errorf("schema-mode edit stored %q", got.Data)
	}
}
