package inspector

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core/vector"
)

var hitRE = regexp.MustCompile(`<section class="hit" data-rank="(\d+)">`)

func recallURL(kv ...string) string { return pageURL("/recall", kv...) }

func TestRecallPlayground(t *testing.T) {
	eachStore(t, func(t *testing.T, f *fixture) {
		h := f.handler(t, Options{})
		w := get(h, recallURL("resource", "user-456", "q", "peanut allergy", "mode", "vector", "topk", "3", "before", "1", "after", "0"))
		wantStatus(t, w, http.StatusOK)
		body := w.Body.String()
		if n := len(hitRE.FindAllString(body, -1)); n != 3 {
			t.Fatalf("%d hits, want topk 3", n)
		}
		wantContains(t, body, "memory_messages_384", "(vector)", `value="vector" checked`)
		// The hits match what the vector store itself returns, in order.
		vec := f.embedder.EmbedOne("peanut allergy")
		hits, err := f.vectors.Query(bg, vector.IndexName(len(vec)), vector.Query{Vector: vec, TopK: 3, Filter: vector.Filter{ResourceID: "user-456"}})
		if err != nil {
			t.Fatal(err)
		}
		pos := -1
		for _, hit := range hits {
			i := strings.Index(body, hit.ID)
			if i < 0 {
				t.Errorf("hit %s missing", hit.ID)
			} else if i < pos {
				t.Errorf("hit %s out of order", hit.ID)
			}
			pos = i
		}
		// Each hit comes with its range: one message before it (when any).
		first := body[strings.Index(body, `data-rank="1"`):]
		first = first[:strings.Index(first, "</section>")]
		if !strings.Contains(first, "recalled") || !strings.Contains(strings.ToLower(first), "peanut") {
			t.Errorf("first hit lacks the recalled peanut message:\n%s", first)
		}
	})
}

func TestRecallModes(t *testing.T) {
	eachStore(t, func(t *testing.T, f *fixture) {
		h := f.handler(t, Options{})
		for _, mode := range []string{vector.SearchVector, vector.SearchBM25, vector.SearchHybrid} {
			w := get(h, recallURL("resource", "user-456", "q", "gift basket peanuts", "mode", mode, "alpha", "0.3"))
			wantStatus(t, w, http.StatusOK)
			wantContains(t, w.Body.String(), "("+mode+")", `value="`+mode+`" checked`)
			if len(hitRE.FindAllString(w.Body.String(), -1)) == 0 {
				t.Errorf("mode %s: no hits", mode)
			}
		}
		// Another resource's messages never come back.
		w := get(h, recallURL("resource", "user-789", "q", "peanuts", "mode", vector.SearchBM25))
		wantStatus(t, w, http.StatusOK)
		wantContains(t, w.Body.String(), `<p class="count" id="hit-count">0 hits`)
		// A thread filter keeps hits of that thread only.
		w = get(h, recallURL("resource", "user-456", "thread", f.gifts.ID, "q", "peanut"))
		for _, m := range regexp.MustCompile(`thread <code>([^<]+)</code>`).FindAllStringSubmatch(w.Body.String(), -1) {
			if m[1] != f.gifts.ID {
				t.Errorf("thread filter returned a hit of %s", m[1])
			}
		}
	})
}

func TestRecallBadInput(t *testing.T) {
	eachStore(t, func(t *testing.T, f *fixture) {
		h := f.handler(t, Options{})
		for _, target := range []string{
			recallURL("resource", "user-456", "q", "x", "mode", "telepathy"),
			recallURL("resource", "user-456", "q", "x", "topk", "0"),
			recallURL("resource", "user-456", "q", "x", "alpha", "2"),
			recallURL("resource", "", "q", "x"),
		} {
			w := get(h, target)
			wantStatus(t, w, http.StatusBadRequest)
			wantContains(t, w.Body.String(), `id="recall-error"`)
		}
		// Without a query the form is shown with the configured defaults.
		w := get(h, recallURL("resource", "user-456"))
		wantStatus(t, w, http.StatusOK)
		wantContains(t, w.Body.String(), `name="topk" min="1" max="100" value="2"`)
	})
}

func TestRecallNotConfigured(t *testing.T) {
	f := newFixture(t, stores[0].open(t))
	h, err := New(Options{Memory: f.mem})
	if err != nil {
		t.Fatal(err)
	}
	w := get(h, recallURL("resource", "user-456", "q", "peanut"))
	wantStatus(t, w, http.StatusOK)
	wantContains(t, w.Body.String(), "Semantic recall is not configured")
	if strings.Contains(w.Body.String(), `id="hit-count"`) {
		t.Error("searched without a vector store")
	}
}

// TestRecallDefaultsToHybrid: without a mode the playground searches as a
// turn does, hybrid where the vector store supports it.
func TestRecallDefaultsToHybrid(t *testing.T) {
	eachStore(t, func(t *testing.T, f *fixture) {
		w := get(f.handler(t, Options{}), recallURL("resource", "user-456", "q", "peanut allergy"))
		wantStatus(t, w, http.StatusOK)
		wantContains(t, w.Body.String(), "(hybrid)", `value="hybrid" checked`)
	})
}
