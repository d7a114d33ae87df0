package core_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// titleModel is a scripted core.Model that records its calls.
type titleModel struct {
	mu      sync.Mutex
	out     string
	err     error
	calls   int
	systems []string
	prompts []string
	block   chan struct{} // when set, Generate waits for it to close
}

func (m *titleModel) Generate(_ context.Context, system, prompt string) (string, error) {
	if m.block != nil {
		<-m.block
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	m.systems = append(m.systems, system)
	m.prompts = append(m.prompts, prompt)
	return m.out, m.err
}

func (m *titleModel) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls
}

type titleEvent struct{ thread, title string }

type titleHarness struct {
	mem    *core.Memory
	model  *titleModel
	mu     sync.Mutex
	events []titleEvent
}

func newTitleHarness(t *testing.T, out string, cfg core.TitleConfig) *titleHarness {
	t.Helper()
	h := &titleHarness{model: &titleModel{out: out}}
	cfg.OnTitle = func(thread, title string) {
		h.mu.Lock()
		h.events = append(h.events, titleEvent{thread, title})
		h.mu.Unlock()
	}
	mem, err := core.New(core.Options{Store: memstore.New(), Model: h.model, Config: core.Config{GenerateTitle: &cfg}})
	if err != nil {
		t.Fatal(err)
	}
	h.mem = mem
	return h
}

func (h *titleHarness) turn(t *testing.T, thread, user, reply string, cfg *core.Config) {
	t.Helper()
	ctx := context.Background()
	turn, err := h.mem.Begin(ctx, core.TurnRequest{ThreadID: thread, ResourceID: "R", Config: cfg,
		Input: []core.Message{core.NewMessage(core.RoleUser, user)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := turn.Commit(ctx, []core.Message{core.NewMessage(core.RoleAssistant, reply)}); err != nil {
		t.Fatalf("Commit: %v", err)
	}
}

func (h *titleHarness) title(t *testing.T, thread string) string {
	t.Helper()
	th, err := h.mem.GetThread(context.Background(), thread, "")
	if err != nil {
		t.Fatal(err)
	}
	return th.Title
}

func TestTitleSetOnceAfterCommit(t *testing.T) {
	h := newTitleHarness(t, "Trip to Lisbon", core.TitleConfig{})
	h.turn(t, "t1", "Help me plan a trip to Lisbon", "Sure, when?", nil)
	if got := h.title(t, "t1"); got != "Trip to Lisbon" {
		t.Fatalf("title = %q", got)
	}
	if h.model.count() != 1 {
		t.Fatalf("model called %d times", h.model.count())
	}
	if p := h.model.prompts[0]; !strings.Contains(p, "User: Help me plan a trip to Lisbon") || !strings.Contains(p, "Assistant: Sure, when?") {
		t.Fatalf("title prompt = %q", p)
	}
	if s := h.model.systems[0]; !strings.Contains(s, "80 characters") {
		t.Fatalf("default instructions = %q", s)
	}
	h.model.out = "Something else"
	h.turn(t, "t1", "In May", "Great", nil)
	if got := h.title(t, "t1"); got != "Trip to Lisbon" || h.model.count() != 1 {
		t.Fatalf("second turn: title %q, %d calls", got, h.model.count())
	}
	if len(h.events) != 1 || h.events[0] != (titleEvent{"t1", "Trip to Lisbon"}) {
		t.Fatalf("OnTitle events = %+v", h.events)
	}
}

func TestTitleNeverOverwritesExisting(t *testing.T) {
	h := newTitleHarness(t, "Generated", core.TitleConfig{})
	if _, err := h.mem.CreateThread(context.Background(), core.ThreadInput{ID: "t1", ResourceID: "R", Title: "My own title"}); err != nil {
		t.Fatal(err)
	}
	h.turn(t, "t1", "hello", "hi", nil)
	if got := h.title(t, "t1"); got != "My own title" || h.model.count() != 0 || len(h.events) != 0 {
		t.Fatalf("title %q, %d calls, events %+v", got, h.model.count(), h.events)
	}
}

func TestTitleNotAttemptedWhenReadOnly(t *testing.T) {
	h := newTitleHarness(t, "Generated", core.TitleConfig{})
	if _, err := h.mem.CreateThread(context.Background(), core.ThreadInput{ID: "t1", ResourceID: "R"}); err != nil {
		t.Fatal(err)
	}
	h.turn(t, "t1", "hello", "hi", &core.Config{ReadOnly: core.Bool(true)})
	if got := h.title(t, "t1"); got != "" || h.model.count() != 0 {
		t.Fatalf("read-only turn: title %q, %d calls", got, h.model.count())
	}
}

func TestTitleCleaned(t *testing.T) {
	for _, tc := range []struct{ out, want string }{
		{"<think>The user wants: a trip</think>\n\"Trip planning: Lisbon\"", "Trip planning Lisbon"},
		{"  'Quoted title'  \nsecond line", "Quoted title"},
		{"“Curly quotes”", "Curly quotes"},
		{"<reasoning>hmm</reasoning>Budget review", "Budget review"},
	} {
		h := newTitleHarness(t, tc.out, core.TitleConfig{})
		h.turn(t, "t1", "hello", "hi", nil)
		if got := h.title(t, "t1"); got != tc.want {
			t.Fatalf("model %q: title %q, want %q", tc.out, got, tc.want)
		}
	}
}

func TestTitleAtMost80Chars(t *testing.T) {
	long := strings.Repeat("Überlange Überschrift ", 20)
	h := newTitleHarness(t, long, core.TitleConfig{})
	h.turn(t, "t1", "hello", "hi", nil)
	got := h.title(t, "t1")
	if n := utf8.RuneCountInString(got); n == 0 || n > 80 || !utf8.ValidString(got) || !strings.HasPrefix(long, got) {
		t.Fatalf("title %q has %d runes", got, n)
	}
}

func TestTitleModelErrorDoesNotFailCommit(t *testing.T) {
	h := newTitleHarness(t, "", core.TitleConfig{})
	h.model.err = errors.New("model down")
	h.turn(t, "t1", "hello", "hi", nil) // fails the test if Commit errors
	if got := h.title(t, "t1"); got != "" || h.model.count() != 1 || len(h.events) != 0 {
		t.Fatalf("title %q, %d calls, events %+v", got, h.model.count(), h.events)
	}
	// A later success fills the title in.
	h.model.err, h.model.out = nil, "Recovered"
	h.turn(t, "t1", "again", "ok", nil)
	if got := h.title(t, "t1"); got != "Recovered" {
		t.Fatalf("title after recovery = %q", got)
	}
	// An empty answer leaves the title empty.
	h2 := newTitleHarness(t, "<think>only thoughts</think>", core.TitleConfig{})
	h2.turn(t, "t1", "hello", "hi", nil)
	if got := h2.title(t, "t1"); got != "" || len(h2.events) != 0 {
		t.Fatalf("empty title stored: %q", got)
	}
}

func TestTitleOptions(t *testing.T) {
	// MinMessages waits for enough messages; a TitleConfig model and custom
	// instructions take precedence.
	own := &titleModel{out: "From own model"}
	h := newTitleHarness(t, "From default model", core.TitleConfig{MinMessages: 3, Model: own, Instructions: "Name it."})
	h.turn(t, "t1", "hello", "hi", nil)
	if got := h.title(t, "t1"); got != "" || own.count() != 0 {
		t.Fatalf("title before MinMessages: %q (%d calls)", got, own.count())
	}
	h.turn(t, "t1", "more", "sure", nil)
	if got := h.title(t, "t1"); got != "From own model" || h.model.count() != 0 || own.systems[0] != "Name it." {
		t.Fatalf("title %q, default model calls %d, systems %q", got, h.model.count(), own.systems)
	}
	// Disabled per call: no title.
	h2 := newTitleHarness(t, "X", core.TitleConfig{})
	h2.turn(t, "t1", "hello", "hi", &core.Config{GenerateTitle: &core.TitleConfig{Disabled: true}})
	if got := h2.title(t, "t1"); got != "" || h2.model.count() != 0 {
		t.Fatalf("disabled: title %q", got)
	}
}

// Background titles do not run inside Commit; Close waits for them.
func TestTitleBackground(t *testing.T) {
	h := newTitleHarness(t, "Garden plans", core.TitleConfig{Background: true})
	h.model.block = make(chan struct{})
	h.turn(t, "t1", "Which roses grow in shade?", "A few do.", nil) // returns while the model is blocked
	if got := h.title(t, "t1"); got != "" {
		t.Fatalf("title set before the model answered: %q", got)
	}
	close(h.model.block)
	if err := h.mem.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := h.title(t, "t1"); got != "Garden plans" {
		t.Fatalf("title = %q", got)
	}
}
