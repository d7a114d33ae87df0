package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestClearObservationsCommand: clear-observations resets a thread's record
// and its archived generations, leaves the messages, needs --write and one
// of --thread and --resource, and changes nothing when refused.
func TestClearObservationsCommand(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		seed(t, b.store)
		before, err := b.store.GetObservations(bg, "thread:trip")
		if err != nil || before.Generation != 1 {
			t.Fatalf("seeded record: %+v, %v", before, err)
		}
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"clear-observations", "--thread", "trip"}, "--write"},
			{[]string{"--write", "clear-observations"}, "give --thread THREAD or --resource RESOURCE"},
			{[]string{"--write", "clear-observations", "--thread", "trip", "--resource", "ada"}, "not both"},
			{[]string{"--write", "clear-observations", "--thread", "nope"}, "not found"},
		} {
			r := b.agentmem(t, "", c.args...)
			if r.code == 0 || !strings.Contains(r.stderr, c.want) {
				t.Fatalf("%v: exit %d, stderr %q; want an error with %q", c.args, r.code, r.stderr, c.want)
			}
		}
		if rec, _ := b.store.GetObservations(bg, "thread:trip"); rec.Version != before.Version {
			t.Fatalf("a refused command changed the record: %+v", rec)
		}

		r := b.agentmem(t, "", "--write", "clear-observations", "--thread", "trip").ok(t)
		if r.stdout != "cleared the observations of thread trip (8 tokens, 1 archived generations)\n" {
			t.Fatalf("output: %q", r.stdout)
		}
		rec, err := b.store.GetObservations(bg, "thread:trip")
		if err != nil || rec.Observations != "" || !rec.LastObservedAt.IsZero() || rec.Version != before.Version+1 {
			t.Fatalf("record after clear: %+v, %v", rec, err)
		}
		if gens, _ := b.store.ListObservationGenerations(bg, "thread:trip"); len(gens) != 0 {
			t.Fatalf("archived generations after clear: %+v", gens)
		}
		if export := b.agentmem(t, "", "export", "--thread", "trip").ok(t).stdout; strings.Contains(export, `"kind":"observations"`) ||
			strings.Count(export, `"kind":"message"`) != 5 {
			t.Fatalf("export after clear:\n%s", export)
		}
		r = b.agentmem(t, "", "--write", "--json", "clear-observations", "--resource", "ada").ok(t)
		if doc := jsonDoc(t, r); doc["key"] != "resource:ada" || doc["version"] != float64(0) {
			t.Fatalf("json output of a never-written record: %v", doc)
		}
	})
}

// chatServer is a scripted OpenAI-compatible chat endpoint on loopback that
// answers the observer with one line per call and records the system
// prompts it was sent.
type chatServer struct {
	mu      sync.Mutex
	systems []string
	prompts []string
}

func (c *chatServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	n := len(c.systems) + 1
	for _, m := range req.Messages {
		text, _ := json.Marshal(m.Content)
		if m.Role == "system" {
			c.systems = append(c.systems, string(text))
		} else {
			c.prompts = append(c.prompts, string(text))
		}
	}
	c.mu.Unlock()
	reply := "- [2025-03-01] (high) Ada likes mushroom risotto"
	if n > 1 {
		reply = "- [2025-03-01] (high) Ada: vegetarian, risotto"
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chat-1", "object": "chat.completion", "created": 0, "model": "scripted",
		"choices": []map[string]any{{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": reply}}},
		"usage":   map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
	})
}

// TestObserveAndReflectCommands: observe runs the observer over a thread's
// unobserved messages now and reflect condenses the observations, both
// through the configured chat model; without a model nothing is called.
func TestObserveAndReflectCommands(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		seed(t, b.store)
		chat := &chatServer{}
		srv := httptest.NewServer(chat)
		defer srv.Close()
		model := []string{"--model-url", srv.URL + "/v1", "--model", "scripted"}
		for _, c := range []struct {
			args []string
			want string
		}{
			{append([]string{"observe", "food"}, model...), "--write"},
			{[]string{"--write", "observe", "food"}, "--model-url URL and --model NAME"},
			{append([]string{"--write", "observe", "food", "--scope", "global"}, model...), "--scope must be thread or resource"},
			{append([]string{"--write", "reflect", "nope"}, model...), "not found"},
		} {
			t.Setenv("AGENTMEM_MODEL_URL", "")
			r := b.agentmem(t, "", c.args...)
			if r.code == 0 || !strings.Contains(r.stderr, c.want) {
				t.Fatalf("%v: exit %d, stderr %q; want an error with %q", c.args, r.code, r.stderr, c.want)
			}
		}
		if len(chat.systems) != 0 {
			t.Fatal("a refused command called the model")
		}

		r := b.agentmem(t, "", append([]string{"--write", "observe", "food"}, model...)...).ok(t)
		if !strings.Contains(r.stdout, "observations of thread:food: generation 0") {
			t.Fatalf("observe output: %q", r.stdout)
		}
		rec, err := b.store.GetObservations(bg, "thread:food")
		if err != nil || rec.Observations != "- [2025-03-01] (high) Ada likes mushroom risotto" || rec.Version != 1 {
			t.Fatalf("record after observe: %+v, %v", rec, err)
		}
		if len(chat.prompts) != 1 || !strings.Contains(chat.prompts[0], "Something vegetarian tonight?") || !strings.Contains(chat.systems[0], "observer") {
			t.Fatalf("observer call: systems %q prompts %q", chat.systems, chat.prompts)
		}

		r = b.agentmem(t, "", append([]string{"--write", "--json", "reflect", "food"}, model...)...).ok(t)
		if doc := jsonDoc(t, r); doc["generation"] != float64(1) || doc["observations"] != "- [2025-03-01] (high) Ada: vegetarian, risotto" {
			t.Fatalf("reflect output: %v", doc)
		}
		if gens, _ := b.store.ListObservationGenerations(bg, "thread:food"); len(gens) != 1 || gens[0].Observations != rec.Observations {
			t.Fatalf("archived generations after reflect: %+v", gens)
		}
		if len(chat.systems) != 2 || !strings.Contains(chat.systems[1], "reflector") {
			t.Fatalf("reflector call: %q", chat.systems)
		}
	})
}
