package inspector

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/store/sqlite"
	"github.com/agentmem/agentmem/core/vector/local"
)

var bg = context.Background()

// scriptMessage is stored text that would run if the pages did not escape it.
const scriptMessage = `<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"> is this text safe?`

// fixtureBudget is the fixture's small token budget, so that turns trim history
// and the support thread gets a persisted boundary.
const fixtureBudget = 600

// fixture is memory filled through core.Memory: a support thread with a
// tool call, reasoning, a file, a <script> message and a boundary; a second
// thread of the same resource; a thread with observations; and a thread of
// another resource.
type fixture struct {
	mem      *core.Memory
	store    store.Store
	vectors  *local.Store
	embedder *local.HashEmbedder
	support  core.Thread
	gifts    core.Thread
	cooking  core.Thread
	other    core.Thread
}

// stores are the backends the handler tests run on.
var stores = []struct {
	name string
	open func(t *testing.T) store.Store
}{
	{"memstore", func(t *testing.T) store.Store { return memstore.New() }},
	{"sqlite", func(t *testing.T) store.Store {
		s, err := sqlite.Open(bg, filepath.Join(t.TempDir(), "memory.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}},
}

// memoryConfig is the configuration the fixture's turns run under.
func memoryConfig() core.Config {
	return core.Config{
		MessageHistory: &core.MessageHistory{MaxTokens: fixtureBudget},
		SemanticRecall: &core.SemanticRecall{TopK: 2, MessageRange: &core.MessageRange{Before: 1, After: 1}},
		WorkingMemory:  &core.WorkingMemoryConfig{Enabled: true},
	}
}

func newFixture(t *testing.T, store store.Store) *fixture {
	t.Helper()
	f := &fixture{store: store, vectors: local.New(), embedder: local.NewHashEmbedder(0)}
	var err error
	f.mem, err = core.New(core.Options{Store: store, Vector: f.vectors, Embedder: f.embedder, Config: memoryConfig()})
	if err != nil {
		t.Fatal(err)
	}
	f.support = f.thread(t, "user-456", "Order support")
	f.gifts = f.thread(t, "user-456", "Gift baskets")
	f.other = f.thread(t, "user-789", "Billing question")
	for _, tr := range supportTurns() {
		f.turn(t, f.support, tr.input, tr.answer...)
	}
	f.turn(t, f.gifts, []core.Message{core.NewMessage(core.RoleUser, "Please send a gift basket to my sister, without peanuts.")},
		core.NewMessage(core.RoleAssistant, "A peanut-free gift basket is on its way to your sister."))
	f.turn(t, f.other, []core.Message{core.NewMessage(core.RoleUser, "Why was I charged twice?")},
		core.NewMessage(core.RoleAssistant, "The second charge is a pending authorization."))
	if err := f.mem.UpdateWorkingMemory(bg, f.support.ID, "user-456",
		"# About the user\n- **Name**: Ada <b>Lovelace</b>\n- **Preferences**: no peanuts\n", nil); err != nil {
		t.Fatal(err)
	}
	f.cooking = f.observedThread(t)
	th, err := store.GetThread(bg, f.support.ID)
	if err != nil {
		t.Fatal(err)
	}
	if th.Boundary == nil {
		t.Fatal("the support thread has no boundary: the fixture's turns did not trim")
	}
	f.support = th
	return f
}

func (f *fixture) thread(t *testing.T, resource, title string) core.Thread {
	t.Helper()
	th, err := f.mem.CreateThread(bg, core.ThreadInput{ResourceID: resource, Title: title})
	if err != nil {
		t.Fatal(err)
	}
	return th
}

// turn runs one Begin/Commit of th under the fixture's memory.
func (f *fixture) turn(t *testing.T, th core.Thread, input []core.Message, answer ...core.Message) {
	t.Helper()
	runTurn(t, f.mem, th, input, answer...)
}

func runTurn(t *testing.T, mem *core.Memory, th core.Thread, input []core.Message, answer ...core.Message) {
	t.Helper()
	turn, err := mem.Begin(bg, core.TurnRequest{ThreadID: th.ID, ResourceID: th.ResourceID,
		System: []string{"You are a friendly support agent."}, Input: input})
	if err != nil {
		t.Fatal(err)
	}
	if err := turn.Commit(bg, answer); err != nil {
		t.Fatal(err)
	}
}

type scriptedTurn struct {
	input  []core.Message
	answer []core.Message
}

func supportTurns() []scriptedTurn {
	user := func(s string) []core.Message { return []core.Message{core.NewMessage(core.RoleUser, s)} }
	say := func(s string) core.Message { return core.NewMessage(core.RoleAssistant, s) }
	lookup := core.Message{Role: core.RoleAssistant, Content: core.Content{Parts: []core.Part{
		{Type: core.PartReasoning, Reasoning: "The user wants the order status; look it up first."},
		{Type: core.PartToolInvocation, ToolInvocation: &message.ToolInvocation{State: message.ToolStateResult, ToolCallID: "call-1",
			ToolName: "lookupOrder", Args: json.RawMessage(`{"orderId":"A-1"}`), Result: json.RawMessage(`{"eta":"2026-10-30","carrier":"DHL"}`)}},
	}}}
	invoice := core.Message{Role: core.RoleUser, Content: core.Content{Parts: []core.Part{
		core.TextPart("Here is the invoice. What carrier was my order using again?"),
		{Type: core.PartFile, Filename: "invoice-A-1.pdf", MimeType: "application/pdf", Data: "JVBERi0xLjQK"},
	}}}
	return []scriptedTurn{
		{user("Hi! My order A-1 has not arrived. Where is it?"), []core.Message{lookup, say("Order A-1 ships with DHL and arrives on 2026-10-30.")}},
		{user("By the way, I am allergic to peanuts, please remember that for gift baskets."), []core.Message{say("Noted: no peanuts in gift baskets.")}},
		{user(scriptMessage), []core.Message{say("Yes: it is stored and shown as plain text.")}},
		{user("Can you tell me a long story about shipping containers?"), []core.Message{say(story())}},
		{[]core.Message{invoice}, []core.Message{say("Your order A-1 is with DHL.")}},
		{user("Thanks, that is all."), []core.Message{say("You are welcome!")}},
	}
}

func story() string {
	s := "Once upon a time, a shipping container crossed the ocean."
	for range 12 {
		s += " It carried toys, books and machines from port to port, and every sailor knew its number."
	}
	return s
}

// observedThread runs turns under observational memory with scripted
// observer and reflector models until a reflection made generation 1.
func (f *fixture) observedThread(t *testing.T) core.Thread {
	t.Helper()
	observer := modelFunc(func(prompt string) string { return "- [2026-10-30] (medium) The user cooks pasta on Fridays." })
	reflector := modelFunc(func(prompt string) string { return "- [2026-10-30] (high) The user likes Italian food." })
	mem, err := core.New(core.Options{Store: f.store, Config: core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{
		ObserverModel: observer, ReflectorModel: reflector,
		Observation: core.ObservationConfig{MessageTokens: 30}, Reflection: core.ReflectionConfig{ObservationTokens: 25},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	th := f.thread(t, "user-456", "Cooking chat")
	for i := range 4 {
		runTurn(t, mem, th, []core.Message{core.NewMessage(core.RoleUser, fmt.Sprintf("Question %d: what should I cook on Friday evening?", i))},
			core.NewMessage(core.RoleAssistant, "How about a fresh pasta with tomatoes and basil?"))
	}
	rec, err := store.Check(f.store).GetObservations(bg, store.ObservationKey(core.ScopeThread, th.ID, th.ResourceID))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Generation < 1 {
		t.Fatalf("observations reached generation %d, want a reflection", rec.Generation)
	}
	return th
}

type modelFunc func(prompt string) string

func (m modelFunc) Generate(_ context.Context, _, prompt string) (string, error) {
	return m(prompt), nil
}

// handler builds the inspector over the fixture with opts' safety settings.
func (f *fixture) handler(t *testing.T, opts Options) http.Handler {
	t.Helper()
	opts.Memory, opts.Vector, opts.Embedder = f.mem, f.vectors, f.embedder
	h, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// get performs a GET against h from a loopback host.
func get(h http.Handler, target string, header ...string) *httptest.ResponseRecorder {
	return getHost(h, "127.0.0.1:7700", target, header...)
}

// getHost performs a GET with the given Host header.
func getHost(h http.Handler, host, target string, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, target, nil)
	r.Host = host
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// post submits a form to h from a loopback host.
func post(h http.Handler, target string, form url.Values, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	r.Host = "127.0.0.1:7700"
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// eachStore runs fn on a fresh fixture per backend.
func eachStore(t *testing.T, fn func(t *testing.T, f *fixture)) {
	for _, s := range stores {
		t.Run(s.name, func(t *testing.T) { fn(t, newFixture(t, s.open(t))) })
	}
}

func wantStatus(t *testing.T, w *httptest.ResponseRecorder, status int) {
	t.Helper()
	if w.Code != status {
		t.Fatalf("status %d, want %d; body:\n%s", w.Code, status, clip(w.Body.String(), 600))
	}
}

func wantContains(t *testing.T, body string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(body, s) {
			t.Errorf("body lacks %q", s)
		}
	}
}
