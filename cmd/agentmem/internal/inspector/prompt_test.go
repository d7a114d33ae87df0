package inspector

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core/store"
)

var (
	segRE   = regexp.MustCompile(`<rect class="seg [^"]+" data-source="([^"]+)" data-tokens="(\d+)"`)
	totalRE = regexp.MustCompile(`<span id="prompt-total">(\d+)</span>`)
	badgeRE = regexp.MustCompile(`<article class="msg[^"]*" id="m-[^"]*" data-id="([^"]*)">\s*<header>\s*<span class="role">[^<]*</span>\s*<span class="badge src-[^"]+">([^<]+)</span>`)
)

func promptURL(id string, kv ...string) string {
	return pageURL("/prompt", append([]string{"id", id}, kv...)...)
}

// pageURL is path with the query of the key/value pairs kv.
func pageURL(path string, kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return path + "?" + v.Encode()
}

func TestPromptView(t *testing.T) {
	eachStore(t, func(t *testing.T, f *fixture) {
		h := f.handler(t, Options{})
		before := f.snapshot(t)
		w := get(h, promptURL(f.support.ID, "input", "Do you remember my peanut allergy?", "system", "You are terse."))
		wantStatus(t, w, http.StatusOK)
		body := w.Body.String()
		// The bar's segments add up to the prompt's total.
		sum := 0
		seen := map[string]int{}
		for _, m := range segRE.FindAllStringSubmatch(body, -1) {
			n, _ := strconv.Atoi(m[2])
			sum += n
			seen[m[1]] = n
		}
		total := totalRE.FindStringSubmatch(body)
		if total == nil || total[1] != itoa(sum) {
			t.Errorf("total %v, segments add up to %d", total, sum)
		}
		for _, src := range []string{srcSystem, srcWorkingMemory, srcHistory, srcRecall, srcInput, srcFraming} {
			if seen[src] <= 0 {
				t.Errorf("no %q segment in %v", src, seen)
			}
		}
		// Same-thread recall hits are told apart from history: they lie
		// before the boundary, history after it.
		labelled := map[string]int{}
		for _, m := range badgeRE.FindAllStringSubmatch(body, -1) {
			id, src := m[1], m[2]
			stored, err := f.store.GetMessages(bg, []string{id})
			if err != nil {
				t.Fatal(err)
			}
			if len(stored) != 1 {
				continue // the input, system and fenced messages are not stored
			}
			labelled[src]++
			excluded := f.support.Boundary.Excludes(stored[0].CreatedAt, id)
			if (src == srcRecall) != excluded {
				t.Errorf("message %s labelled %q, before the boundary: %v", id, src, excluded)
			}
		}
		if labelled[srcRecall] == 0 || labelled[srcHistory] == 0 {
			t.Errorf("stored messages by label %v: want both recall hits and history", labelled)
		}
		// The view is read-only: nothing stored, the boundary did not move.
		if after := f.snapshot(t); after != before {
			t.Errorf("the prompt view changed memory:\n%+v\n%+v", before, after)
		}
	})
}

func TestPromptViewBudget(t *testing.T) {
	eachStore(t, func(t *testing.T, f *fixture) {
		h := f.handler(t, Options{})
		before := f.snapshot(t)
		// A budget far below the thread trims everything remembered, without
		// moving the stored boundary.
		w := get(h, promptURL(f.support.ID, "budget", "50"))
		wantStatus(t, w, http.StatusOK)
		wantContains(t, w.Body.String(), "trimmed by the budget", `of a <span id="prompt-budget">50</span>-token budget`)
		// Trimmed messages the history read left undecoded are shown with their text.
		_, trimmed, _ := strings.Cut(w.Body.String(), "trimmed by the budget")
		wantContains(t, trimmed, "allergic to peanuts", "Noted: no peanuts in gift baskets.")
		if after := f.snapshot(t); after != before {
			t.Errorf("a trimming prompt view changed memory")
		}
		// Without a budget in the form, the one of the thread's boundary is used.
		wantContains(t, get(h, promptURL(f.support.ID)).Body.String(), `name="budget" min="0" value="`+itoa(fixtureBudget)+`"`)
		wantStatus(t, get(h, promptURL(f.support.ID, "budget", "-1")), http.StatusBadRequest)
		wantStatus(t, get(h, promptURL(f.support.ID, "budget", "100", "remove", "101")), http.StatusBadRequest)
		wantStatus(t, get(h, promptURL("missing")), http.StatusNotFound)
	})
}

// memState is what a read-only view must leave unchanged.
type memState struct {
	messages int
	boundary string
	updated  string
}

func (f *fixture) snapshot(t *testing.T) memState {
	t.Helper()
	p, err := f.store.ListMessages(bg, store.MessageQuery{ThreadID: f.support.ID, IncludeTotal: true})
	if err != nil {
		t.Fatal(err)
	}
	th, err := f.store.GetThread(bg, f.support.ID)
	if err != nil {
		t.Fatal(err)
	}
	b := ""
	if th.Boundary != nil {
		b = th.Boundary.CreatedAt.String() + itoa(len(th.Boundary.MessageIDs)) + itoa(th.Boundary.MaxTokens)
	}
	return memState{messages: p.Total, boundary: b, updated: th.UpdatedAt.String()}
}
