package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"testing"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/inspector"
)

var (
	pageTotalRE  = regexp.MustCompile(`<span id="prompt-total">(\d+)</span>`)
	pageTokensRE = regexp.MustCompile(`<section class="prompt-messages">|<details class="trimmed"|<span class="tokens" data-tokens="(\d+)">`)
)

// pagePrompt returns the total and the per-message token counts of the
// inspector's prompt page for query q.
func pagePrompt(t *testing.T, h http.Handler, q url.Values) (int, []int) {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, "/prompt?"+q.Encode(), nil)
	r.Host = "127.0.0.1:7700"
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Fatalf("prompt page: %d\n%s", w.Code, w.Body.String())
	}
	body := w.Body.String()
	m := pageTotalRE.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("prompt page has no total:\n%s", body)
	}
	total, _ := strconv.Atoi(m[1])
	var tokens []int
	inPrompt := false
	for _, sm := range pageTokensRE.FindAllStringSubmatch(body, -1) {
		if sm[1] == "" { // the prompt's messages start, or its trimmed ones
			inPrompt = sm[0] == `<section class="prompt-messages">`
			continue
		}
		if inPrompt {
			n, _ := strconv.Atoi(sm[1])
			tokens = append(tokens, n)
		}
	}
	return total, tokens
}

// TestPromptMatchesInspector: agentmem prompt and the inspector's prompt
// page give the same messages and token counts for the same thread, budget
// and input, with and without a budget of their own.
func TestPromptMatchesInspector(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		seed(t, b.store)
		a := newApp(nil, nil, nil)
		root := a.rootCommand()
		if err := root.ParseFlags(b.flags); err != nil {
			t.Fatal(err)
		}
		c, err := connect(bg, a.flags)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		h, err := inspector.New(inspector.Options{Memory: c.Memory})
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name string
			cli  []string
			page url.Values
		}{
			{"the boundary's budget", nil, url.Values{}},
			{"a budget", []string{"--max-tokens", "60"}, url.Values{"budget": {"60"}}},
			{"a budget and input", []string{"--max-tokens", "330", "--input", "And the weather in June?", "--system", "You are a travel agent."},
				url.Values{"budget": {"330"}, "input": {"And the weather in June?"}, "system": {"You are a travel agent."}}},
		} {
			tc.page.Set("id", "trip")
			var doc struct {
				Messages []struct {
					Tokens int `json:"tokens"`
				} `json:"messages"`
				TotalTokens int `json:"totalTokens"`
			}
			out := b.agentmem(t, "", append([]string{"--json", "prompt", "trip"}, tc.cli...)...).ok(t).stdout
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatal(err)
			}
			var cliTokens []int
			for _, m := range doc.Messages {
				cliTokens = append(cliTokens, m.Tokens)
			}
			total, pageTokens := pagePrompt(t, h, tc.page)
			if total != doc.TotalTokens || len(pageTokens) != len(cliTokens) {
				t.Errorf("%s: page %d tokens in %v, prompt %d tokens in %v", tc.name, total, pageTokens, doc.TotalTokens, cliTokens)
				continue
			}
			for i := range cliTokens {
				if cliTokens[i] != pageTokens[i] {
					t.Errorf("%s: message %d has %d tokens on the page, %d in prompt", tc.name, i+1, pageTokens[i], cliTokens[i])
				}
			}
		}
	})
}
