package inspector

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
)

var tokensRE = regexp.MustCompile(`<article class="msg[^"]*" id="m-[^"]*" data-id="([^"]+)">\s*<header>\s*<span class="role">[^<]*</span>\s*<span class="tokens" data-tokens="(\d+)">`)

func TestThreadView(t *testing.T) {
	eachStore(t, func(t *testing.T, f *fixture) {
		h := f.handler(t, Options{})
		w := get(h, threadURL(f.support.ID, 0))
		wantStatus(t, w, http.StatusOK)
		body := w.Body.String()
		wantContains(t, body, "Order support", "the model no longer sees above this line", "lookupOrder",
			"invoice-A-1.pdf", "application/pdf", "Reasoning", `&#34;carrier&#34;: &#34;DHL&#34;`)
		// The <script> message is text, never markup.
		if strings.Contains(body, "<script>window.__pwned") || strings.Contains(body, "<img src=x") {
			t.Error("a stored message reached the page unescaped")
		}
		wantContains(t, body, "&lt;script&gt;window.__pwned=1&lt;/script&gt;")
		// Working memory markdown is rendered, its HTML escaped.
		wantContains(t, body, "<strong>Name</strong>: Ada &lt;b&gt;Lovelace&lt;/b&gt;")
		// Every message shows its stored token count, in order, and the line
		// sits right after the last message the boundary excludes.
		p, err := f.store.ListMessages(bg, store.MessageQuery{ThreadID: f.support.ID, PerPage: store.PerPageAll})
		if err != nil {
			t.Fatal(err)
		}
		got := tokensRE.FindAllStringSubmatch(body, -1)
		if len(got) != len(p.Messages) {
			t.Fatalf("%d bubbles, %d stored messages", len(got), len(p.Messages))
		}
		lastExcluded := -1
		for i, m := range p.Messages {
			if got[i][1] != m.ID || got[i][2] != itoa(m.Tokens) {
				t.Errorf("bubble %d: %s with %s tokens, want %s with %d", i, got[i][1], got[i][2], m.ID, m.Tokens)
			}
			if f.support.Boundary.Excludes(m.CreatedAt, m.ID) {
				lastExcluded = i
			}
		}
		if lastExcluded < 0 || lastExcluded == len(p.Messages)-1 {
			t.Fatalf("the fixture's boundary excludes up to message %d of %d: want a line inside the thread", lastExcluded, len(p.Messages))
		}
		line := strings.Index(body, `id="boundary"`)
		if before, after := strings.Index(body, `data-id="`+p.Messages[lastExcluded].ID+`"`), strings.Index(body, `data-id="`+p.Messages[lastExcluded+1].ID+`"`); !(before < line && line < after) {
			t.Errorf("boundary line at %d, want between %d and %d", line, before, after)
		}
	})
}

func TestThreadViewObservations(t *testing.T) {
	eachStore(t, func(t *testing.T, f *fixture) {
		w := get(f.handler(t, Options{}), threadURL(f.cooking.ID, 0))
		wantStatus(t, w, http.StatusOK)
		rec, err := store.Check(f.store).GetObservations(bg, store.ObservationKey(core.ScopeThread, f.cooking.ID, f.cooking.ResourceID))
		if err != nil {
			t.Fatal(err)
		}
		wantContains(t, w.Body.String(), `generation <span class="generation">`+itoa(rec.Generation)+`</span>`,
			"The user likes Italian food.", "archived generation 0")
	})
}

func TestThreadViewErrors(t *testing.T) {
	eachStore(t, func(t *testing.T, f *fixture) {
		h := f.handler(t, Options{})
		w := get(h, "/thread?id=no-such-thread")
		wantStatus(t, w, http.StatusNotFound)
		wantContains(t, w.Body.String(), string(core.CodeThreadNotFound))
		wantStatus(t, get(h, "/thread"), http.StatusBadRequest)
		wantStatus(t, get(h, "/thread?id=%00"), http.StatusBadRequest)
		wantStatus(t, get(h, threadURL(f.support.ID, 0)+"&page=abc"), http.StatusBadRequest)
		// A thread id that needs escaping round-trips through the links.
		odd, err := f.mem.CreateThread(bg, core.ThreadInput{ID: `a/b?c=<d>&"e"`, ResourceID: "user-456", Title: "odd id"})
		if err != nil {
			t.Fatal(err)
		}
		w = get(h, "/thread?"+url.Values{"id": {odd.ID}}.Encode())
		wantStatus(t, w, http.StatusOK)
		wantContains(t, w.Body.String(), "odd id")
	})
}

func TestThreadState(t *testing.T) {
	eachStore(t, func(t *testing.T, f *fixture) {
		h := f.handler(t, Options{})
		state := func() string {
			w := get(h, "/thread/state?id="+url.QueryEscape(f.support.ID))
			wantStatus(t, w, http.StatusOK)
			var v struct{ State string }
			if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil || v.State == "" {
				t.Fatalf("state %q: %v", w.Body.String(), err)
			}
			return v.State
		}
		s0 := state()
		// The page embeds the same fingerprint the poll returns.
		wantContains(t, get(h, threadURL(f.support.ID, 0)).Body.String(), `data-state="`+s0+`"`)
		if s := state(); s != s0 {
			t.Fatalf("state changed without a write: %s → %s", s0, s)
		}
		f.turn(t, f.support, []core.Message{core.NewMessage(core.RoleUser, "Are you still there?")}, core.NewMessage(core.RoleAssistant, "Yes."))
		s1 := state()
		if s1 == s0 {
			t.Fatal("state unchanged after a new turn")
		}
		if err := f.mem.UpdateWorkingMemory(bg, f.support.ID, "user-456", "# About the user\n- **Name**: Ada\n", nil); err != nil {
			t.Fatal(err)
		}
		if state() == s1 {
			t.Fatal("state unchanged after a working-memory update")
		}
		w := get(h, "/thread/state?id=missing")
		wantStatus(t, w, http.StatusNotFound)
		if ct := w.Header().Get("Content-Type"); ct != "application/json" {
			t.Errorf("content type %q", ct)
		}
	})
}
