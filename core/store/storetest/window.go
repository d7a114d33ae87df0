package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/internal/testenv"
)

// listOnly hides the driver's optional capabilities, so Memory reads
// history with ListMessages, decoding every row (the path without
// store.WindowReader).
type listOnly struct{ store.Store }

// sized returns a stored message of the given token count under encoding.
func sized(id, role string, tokens int, encoding string, at int) message.Message {
	m := msg(id, "A", "r", strings.Repeat("w", max(tokens, 1)), T(at))
	m.Role, m.Tokens, m.TokenEncoding = message.Role(role), tokens, encoding
	return m
}

// testWindowDecodes checks ListWindow against ListMessages: the same page,
// with exactly the rows WindowFit.Plan selects decoded.
func testWindowDecodes(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	call := msg("call", "A", "r", "", T(3))
	call.Role, call.Tokens, call.TokenEncoding = message.RoleAssistant, 40, "e"
	call.Content = message.Content{Format: 2, Parts: []message.Part{{Type: message.PartToolInvocation,
		ToolInvocation: &message.ToolInvocation{State: message.ToolStateCall, ToolCallID: "c1", ToolName: "f", Args: json.RawMessage(`{}`)}}}}
	mustSave(t, s,
		sized("m1", "user", 30, "e", 1), sized("m2", "user", 30, "other", 2), call,
		sized("m4", "user", 30, "e", 4), sized("big", "assistant", 500, "e", 5), sized("m6", "user", 0, "", 6),
		sized("sys", "system", 20, "e", 7), sized("m8", "user", 30, "e", 8), sized("m9", "assistant", 30, "e", 9),
		sized("m10", "user", 30, "e", 10))
	// Newest first: m10 m9 m8 (90) sys(skipped) m6(recount) big(too big) m4 (120) call (160, tool) m2(recount) m1 (190).
	fit := store.WindowFit{Encoding: "e", Fits: 150, Keep: 100}
	q := store.MessageQuery{ThreadID: "A", PerPage: 20, Direction: store.Desc}
	full := list(t, s, q)
	w, err := s.ListWindow(ctx(), q, fit)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "window ids", ids(w.Messages), ids(full.Messages))
	var bare []string
	for i, m := range w.Messages {
		f := full.Messages[i]
		if m.Seq != f.Seq || !m.CreatedAt.Equal(f.CreatedAt) || m.Tokens != f.Tokens || m.TokenEncoding != f.TokenEncoding || m.Role != f.Role || m.ThreadID != f.ThreadID {
			t.Fatalf("row %s: %+v, want %+v", m.ID, m, f)
		}
		if w.Bare[i] {
			bare = append(bare, m.ID)
			if m.Text() != "" || fmt.Sprint(m.ToolCallIDs()) != fmt.Sprint(f.ToolCallIDs()) {
				t.Fatalf("bare row %s: text %q, tool calls %v (want only %v)", m.ID, m.Text(), m.ToolCallIDs(), f.ToolCallIDs())
			}
		} else if a, b := jsonOf(m.Content), jsonOf(f.Content); a != b {
			t.Fatalf("row %s decoded as %s, want %s", m.ID, a, b)
		}
	}
	// The page's counted rows sum 690 > Fits: a trim is certain, rows within
	// Keep (100) are decoded, plus rows to recount; the call row is bare,
	// with its tool-call id only.
	eq(t, "bare rows", bare, []string{"sys", "big", "m4", "call", "m1"})
	// A known tool-call id (of the input, of an earlier page) decodes its rows.
	linked := fit
	linked.Links = []string{"c1"}
	if w, err = s.ListWindow(ctx(), q, linked); err != nil {
		t.Fatal(err)
	}
	eq(t, "bare rows with a link", bareIDs(w), []string{"sys", "big", "m4", "m1"})

	// Everything fits: every row but the system row is decoded.
	w, err = s.ListWindow(ctx(), q, store.WindowFit{Encoding: "e", Fits: 1000, Keep: 100})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "bare rows when the page fits", bareIDs(w), []string{"sys"})

	// Used carries earlier pages; the cursor and date range apply as in ListMessages.
	start := T(2)
	q = store.MessageQuery{ThreadID: "A", PerPage: 3, Direction: store.Desc, Before: &store.Cursor{CreatedAt: T(8), Seq: full.Messages[2].Seq}, Range: store.DateRange{Start: &start}}
	w, err = s.ListWindow(ctx(), q, store.WindowFit{Encoding: "e", Fits: 150, Keep: 100, Used: 90})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "cursor page", ids(w.Messages), []string{"sys", "m6", "big"})
	eq(t, "cursor page bare", bareIDs(w), []string{"sys", "big"})
	if !w.HasMore {
		t.Fatal("HasMore should be true")
	}
	start = T(4)
	q.Range.Start, q.PerPage = &start, 10
	if w, err = s.ListWindow(ctx(), q, fit); err != nil || w.HasMore || fmt.Sprint(ids(w.Messages)) != "[sys m6 big m4]" {
		t.Fatalf("range page %v more %v err %v", ids(w.Messages), w.HasMore, err)
	}

	_, err = s.ListWindow(ctx(), store.MessageQuery{ThreadID: "A", PerPage: 3}, fit)
	if !errors.Is(err, memerr.ErrInvalidArgument) {
		t.Fatalf("oldest-first window: %v", err)
	}
}

func jsonOf(c message.Content) string {
	b, _ := json.Marshal(c)
	return string(b)
}

func bareIDs(w store.WindowPage) []string {
	var out []string
	for i, b := range w.Bare {
		if b {
			out = append(out, w.Messages[i].ID)
		}
	}
	return out
}

// testWindowSameAsList runs the same turns on two copies of random threads
// (tool calls and results, large messages, system rows, rows counted with
// another encoding or not at all, equal timestamps), one read through the
// driver's store.WindowReader and one through ListMessages alone, under
// random token budgets, count caps, instructions and inputs, changing the
// budget (a new boundary epoch) between turns: prompts, trimmed ids,
// persisted boundaries and Recall's token window (with a date range) must
// be identical.
func testWindowSameAsList(t *testing.T, s *store.Checked) {
	newMem := func(st store.Store) *core.Memory {
		m, err := core.New(core.Options{Store: st, Tokenizer: testenv.ByteTokenizer{}})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	sides := map[string]*core.Memory{"w": newMem(s.Unwrap()), "l": newMem(listOnly{s.Unwrap()})}
	rng := rand.New(rand.NewPCG(17, 2))
	for round := range 24 {
		last := seedThreads(t, s, rng, round)
		cfg := randomBudget(rng)
		for turn := range 4 {
			if rng.IntN(3) == 0 {
				cfg = randomBudget(rng)
			}
			system, input, reply := rng.IntN(300), 1+rng.IntN(400), 1+rng.IntN(300)
			if rng.IntN(2) == 0 { // a large input leaves little room: messages larger than it are skipped
				input = 1 + rng.IntN(cfg.MessageHistory.MaxTokens)
			}
			from := T(rng.IntN(last + 1))
			got := map[string]string{}
			for side, m := range sides {
				thread := fmt.Sprintf("%s%d", side, round)
				req := core.TurnRequest{ThreadID: thread, ResourceID: "r", Config: &cfg,
					Input: []message.Message{msg(fmt.Sprintf("%s-in%d", thread, turn), thread, "r", strings.Repeat("i", input), T(last+1+2*turn))}}
				if system > 150 {
					req.System = []string{strings.Repeat("s", system)}
				}
				got[side] = turnOutcome(t, s, m, req, reply, T(last+2+2*turn), from)
			}
			if got["w"] != got["l"] {
				t.Fatalf("round %d turn %d (config %+v %+v):\nwindow: %s\nlist:   %s", round, turn, cfg.LastMessages, *cfg.MessageHistory, got["w"], got["l"])
			}
		}
	}
}

// turnOutcome runs one Begin and Commit and a Recall from a date and
// describes what they returned and the boundary they left, with thread
// names cut from ids.
func turnOutcome(t *testing.T, s *store.Checked, m *core.Memory, req core.TurnRequest, reply int, at, from time.Time) string {
	t.Helper()
	turn, err := m.Begin(ctx(), req)
	if err != nil {
		t.Fatalf("Begin: %v", err)
	}
	out := "prompt " + describe(turn.Messages()) + " trimmed " + strings.Join(ids(turn.Trimmed()), ",")
	r := message.NewMessage(message.RoleAssistant, strings.Repeat("a", reply))
	r.ID, r.CreatedAt = req.ThreadID+"-re"+req.Input[0].ID, at
	if err := turn.Commit(ctx(), []message.Message{r}); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	th, err := s.GetThread(ctx(), req.ThreadID)
	if err != nil {
		t.Fatal(err)
	}
	if b := th.Boundary; b != nil {
		out += fmt.Sprintf(" boundary %s %v %d %d", b.CreatedAt, b.MessageIDs, b.MaxTokens, b.AtMaxRemoveTokens)
	}
	rec, err := m.Recall(ctx(), core.RecallQuery{ThreadID: req.ThreadID, Range: store.DateRange{Start: &from}, Config: req.Config})
	if err != nil {
		t.Fatalf("Recall: %v", err)
	}
	return strings.ReplaceAll(out+" recall "+describe(rec.Messages), req.ThreadID, "")
}

func describe(msgs []message.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		h := fnv.New64a()
		h.Write([]byte(jsonOf(m.Content)))
		fmt.Fprintf(&b, "[%s %s %s %d %x] ", m.ID, m.Role, m.Source, m.Tokens, h.Sum64())
	}
	return b.String()
}

// randomBudget is a token budget, sometimes with a count cap.
func randomBudget(rng *rand.Rand) core.Config {
	h := &core.MessageHistory{MaxTokens: 150 + rng.IntN(3000)}
	if rng.IntN(2) == 0 {
		h.AtMaxRemoveTokens = core.Int(rng.IntN(h.MaxTokens + 1))
	}
	cfg := core.Config{MessageHistory: h}
	if rng.IntN(3) == 0 {
		cfg.LastMessages = core.LastN(2 + rng.IntN(60))
	}
	return cfg
}

// seedThreads saves the same random messages in threads w<round> and
// l<round> and returns the last time offset used.
func seedThreads(t *testing.T, s *store.Checked, rng *rand.Rand, round int) int {
	type row struct {
		role, text string
		call       string // tool call id; state by callState
		callState  string
		tokens     int // > 0: stored with this count under encoding "other" or "" (0 tokens)
		encoding   string
		at         int
	}
	var rows []row
	at := 0
	pending := []string{}
	n := 20 + rng.IntN(220)
	for i := range n {
		if rng.IntN(100) >= 15 {
			at += 1 + rng.IntN(3)
		}
		r := row{role: "user", text: strings.Repeat("t", 5+rng.IntN(200)), at: at}
		switch k := rng.IntN(100); {
		case k < 4:
			r.role = "system"
		case k < 9:
			r.tokens, r.encoding = 1+rng.IntN(300), "other"
		case k < 12:
			r.tokens = -1 // stored with no count
		case k < 20:
			r.role, r.call, r.callState = "assistant", fmt.Sprintf("c%d", i), message.ToolStateCall
			pending = append(pending, r.call)
		case k < 30 && len(pending) > 0:
			r.role, r.call, r.callState = "assistant", pending[0], message.ToolStateResult
			pending = pending[1:]
		case k < 36:
			r.text = strings.Repeat("L", 500+rng.IntN(4000))
		case k < 60:
			r.role = "assistant"
		}
		rows = append(rows, r)
	}
	writer, err := core.New(core.Options{Store: s.Unwrap(), Tokenizer: testenv.ByteTokenizer{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, side := range []string{"w", "l"} {
		thread := fmt.Sprintf("%s%d", side, round)
		mustThread(t, s, thread, "r")
		var counted, raw []message.Message // one batch each: equal timestamps order by Seq alike on both sides
		for i, r := range rows {
			m := msg(fmt.Sprintf("%s-%d", thread, i), thread, "r", r.text, T(r.at))
			m.Role = message.Role(r.role)
			if r.call != "" {
				m.Content = message.Content{Format: 2, Parts: []message.Part{{Type: message.PartToolInvocation, ToolInvocation: &message.ToolInvocation{
					State: r.callState, ToolCallID: r.call, ToolName: "f", Args: json.RawMessage(`{"q":"` + r.text[:5] + `"}`)}}}}
				if r.callState == message.ToolStateResult {
					m.Content.Parts[0].ToolInvocation.Result = json.RawMessage(`{"r":"` + r.text + `"}`)
				}
			}
			if r.role == "system" || r.encoding != "" || r.tokens < 0 {
				m.Tokens, m.TokenEncoding = max(r.tokens, 0), r.encoding
				raw = append(raw, m)
			} else {
				counted = append(counted, m)
			}
		}
		if _, err := writer.SaveMessages(ctx(), counted, nil); err != nil {
			t.Fatalf("SaveMessages: %v", err)
		}
		if len(raw) > 0 {
			mustSave(t, s, raw...)
		}
	}
	return at
}
