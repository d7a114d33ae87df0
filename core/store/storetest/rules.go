package storetest

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// nested returns metadata whose value nests depth objects deep.
func nested(depth int) map[string]any {
	var v any = "leaf"
	for i := 1; i < depth; i++ {
		v = map[string]any{"k": v}
	}
	return map[string]any{"k": v}
}

// badThreadFields are values every store refuses in a thread, with the
// error they get. One rule for every backend: refuse, never rewrite.
var badThreadFields = []struct {
	name  string
	title string
	meta  map[string]any
}{
	{"NUL title", "a\x00b", nil},
	{"invalid UTF-8 title", "a\xffb", nil},
	{"invalid UTF-8 value", "", map[string]any{"k": "a\xffb"}},
	{"invalid UTF-8 key", "", map[string]any{"a\xffb": "v"}},
	{"NUL value", "", map[string]any{"k": "a\x00b"}},
	{"NUL key", "", map[string]any{"a\x00b": "v"}},
	{"NaN", "", map[string]any{"k": math.NaN()}},
	{"too deep", "", nested(store.MaxJSONDepth + 1)},
	{"unencodable", "", map[string]any{"k": make(chan int)}},
}

// testThreadFieldRules: a refused thread write returns ErrInvalidArgument
// and changes nothing (no row, no update), on every backend.
func testThreadFieldRules(t *testing.T, s *store.Checked) {
	mustThread(t, s, "kept", "r")
	before, _ := s.GetThread(ctx(), "kept")
	for _, c := range badThreadFields {
		th := store.Thread{ID: "new", ResourceID: "r", Title: c.title, Metadata: c.meta, CreatedAt: T(1), UpdatedAt: T(1)}
		_, err := s.SaveThread(ctx(), th)
		wantCode(t, err, memerr.ErrInvalidArgument)
		_, err = s.CreateThread(ctx(), th)
		wantCode(t, err, memerr.ErrInvalidArgument)
		if _, err := s.GetThread(ctx(), "new"); !errors.Is(err, memerr.ErrThreadNotFound) {
			t.Fatalf("%s: refused create left a thread: %v", c.name, err)
		}
		title := c.title
		_, err = s.UpdateThread(ctx(), "kept", &title, c.meta)
		wantCode(t, err, memerr.ErrInvalidArgument)
		if c.meta != nil {
			_, err = s.UpdateResource(ctx(), "r", c.meta)
			if !errors.Is(err, memerr.ErrInvalidArgument) && !errors.Is(err, memerr.ErrUnsupported) {
				t.Fatalf("%s: UpdateResource: %v", c.name, err)
			}
		}
	}
	after, _ := s.GetThread(ctx(), "kept")
	if after.Title != before.Title || !after.UpdatedAt.Equal(before.UpdatedAt) || len(after.Metadata) != 0 {
		t.Fatalf("refused updates changed the thread: %+v -> %+v", before, after)
	}
}

// testDeepMetadataReadable: metadata at the depth limit is stored and every
// read of it works, filtered listing of all resources included (SQLite's
// JSON functions fail past depth 1000, encoding/json past 10000).
func testDeepMetadataReadable(t *testing.T, s *store.Checked) {
	mustThread(t, s, "plain", "r1")
	deep := nested(store.MaxJSONDepth)
	deep["tag"] = "x"
	if _, err := s.SaveThread(ctx(), store.Thread{ID: "deep", ResourceID: "r2", Metadata: deep, CreatedAt: T(1), UpdatedAt: T(1)}); err != nil {
		t.Fatalf("SaveThread at the depth limit: %v", err)
	}
	if _, err := s.GetThread(ctx(), "deep"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []store.ThreadQuery{{}, {Metadata: map[string]any{"tag": "x"}}, {ResourceID: "r1"}} {
		if _, err := s.ListThreads(ctx(), q); err != nil {
			t.Fatalf("ListThreads(%+v) with a deep row: %v", q, err)
		}
	}
	p, err := s.ListThreads(ctx(), store.ThreadQuery{Metadata: map[string]any{"tag": "x"}})
	if err != nil || len(p.Threads) != 1 || p.Threads[0].ID != "deep" {
		t.Fatalf("filtered listing: %+v %v", p, err)
	}
}

// testMessageFieldRules: a message with a bad field is refused with
// ErrInvalidMessage and its batch writes nothing.
func testMessageFieldRules(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	for name, mut := range map[string]func(m *message.Message){
		"NUL type":           func(m *message.Message) { m.Type = "a\x00" },
		"invalid UTF-8 type": func(m *message.Message) { m.Type = "a\xff" },
		"NUL metadata key":   func(m *message.Message) { m.Content.Metadata = map[string]any{"a\x00": 1} },
		"invalid metadata":   func(m *message.Message) { m.Content.Metadata = map[string]any{"k": "\xff"} },
		"deep metadata":      func(m *message.Message) { m.Content.Metadata = nested(store.MaxJSONDepth + 1) },
		"NUL text":           func(m *message.Message) { m.Content.Parts[0].Text = "a\x00" },
		"invalid UTF-8 text": func(m *message.Message) { m.Content.Parts[0].Text = "\xff" },
		"escaped NUL in JSON": func(m *message.Message) {
			m.Content.ProviderMetadata = []byte(`{"k":"\u0000"}`)
		},
		"negative tokens": func(m *message.Message) { m.Tokens = -1 },
	} {
		ok := msg("ok", "A", "r", "fine", T(1))
		bad := msg("bad", "A", "r", "bad", T(2))
		mut(&bad)
		_, err := s.SaveMessages(ctx(), []message.Message{ok, bad})
		if !errors.Is(err, memerr.ErrInvalidMessage) {
			t.Fatalf("%s: err = %v, want %v", name, err, memerr.ErrInvalidMessage)
		}
		if got, _ := s.GetMessages(ctx(), []string{"ok", "bad"}); len(got) != 0 {
			t.Fatalf("%s: refused batch wrote %v", name, ids(got))
		}
	}
}

// testOtherFieldRules: working memory, observations, query ids and lists of
// ids follow the same rules.
func testOtherFieldRules(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	for _, bad := range []string{"a\x00b", "a\xffb"} {
		_, err := s.PutWorkingMemory(ctx(), store.ScopeThread, "A", bad, 0)
		wantCode(t, err, memerr.ErrInvalidArgument)
		_, err = s.PutWorkingMemory(ctx(), store.ScopeResource, "r", bad, 0)
		wantCode(t, err, memerr.ErrInvalidArgument)
		_, err = s.ListThreads(ctx(), store.ThreadQuery{ResourceID: bad})
		wantCode(t, err, memerr.ErrInvalidArgument)
		_, err = s.ListThreads(ctx(), store.ThreadQuery{Metadata: map[string]any{"k": bad}})
		wantCode(t, err, memerr.ErrInvalidArgument)
		_, err = s.ListMessages(ctx(), store.MessageQuery{ThreadID: "A", ResourceID: bad})
		wantCode(t, err, memerr.ErrInvalidArgument)
		_, err = s.ListMessages(ctx(), store.MessageQuery{ThreadID: "A", Include: []store.Include{{ID: bad}}})
		wantCode(t, err, memerr.ErrInvalidArgument)
		_, err = s.GetMessages(ctx(), []string{"x", bad})
		wantCode(t, err, memerr.ErrInvalidArgument)
		wantCode(t, s.DeleteMessages(ctx(), []string{bad}), memerr.ErrInvalidArgument)
		_, err = s.AdvanceBoundary(ctx(), "A", "r", store.Boundary{CreatedAt: T(1), MessageIDs: []string{bad}})
		wantCode(t, err, memerr.ErrInvalidArgument)
		_, err = s.PutObservations(ctx(), store.ObservationRecord{Key: store.ObservationKey(store.ScopeThread, "A", ""), Observations: bad}, 0)
		if !errors.Is(err, memerr.ErrInvalidArgument) && !errors.Is(err, memerr.ErrUnsupported) {
			t.Fatalf("PutObservations(%q): %v", bad, err)
		}
	}
	if wm, _ := s.GetWorkingMemory(ctx(), store.ScopeThread, "A"); wm.Version != 0 {
		t.Fatalf("refused working memory was stored: %+v", wm)
	}
	if th, _ := s.GetThread(ctx(), "A"); th.Boundary != nil {
		t.Fatalf("refused boundary was stored: %+v", th.Boundary)
	}
}

// testEndedContext: every call with a canceled (or expired) context returns
// ErrCanceled (ErrDeadlineExceeded) wrapping the context error and writes
// nothing; a nil context is refused with ErrInvalidArgument.
func testEndedContext(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	canceled, cancel := context.WithCancel(ctx())
	cancel()
	expired, cancel2 := context.WithDeadline(ctx(), time.Now().Add(-time.Second))
	defer cancel2()
	for _, c := range []struct {
		ctx  context.Context
		want error
	}{{canceled, memerr.ErrCanceled}, {expired, memerr.ErrDeadlineExceeded}, {nil, memerr.ErrInvalidArgument}} {
		c := c
		calls := map[string]func() error{
			"SaveThread": func() error {
				_, err := s.SaveThread(c.ctx, store.Thread{ID: "B", ResourceID: "r"})
				return err
			},
			"CreateThread": func() error {
				_, err := s.CreateThread(c.ctx, store.Thread{ID: "B", ResourceID: "r"})
				return err
			},
			"GetThread": func() error { _, err := s.GetThread(c.ctx, "A"); return err },
			"ListThreads": func() error {
				_, err := s.ListThreads(c.ctx, store.ThreadQuery{})
				return err
			},
			"UpdateThread": func() error {
				title := "changed"
				_, err := s.UpdateThread(c.ctx, "A", &title, nil)
				return err
			},
			"DeleteThread": func() error { return s.DeleteThread(c.ctx, "A") },
			"SaveMessages": func() error {
				_, err := s.SaveMessages(c.ctx, []message.Message{msg("m", "A", "r", "x", T(1))})
				return err
			},
			"ListMessages": func() error {
				_, err := s.ListMessages(c.ctx, store.MessageQuery{ThreadID: "A"})
				return err
			},
			"GetMessages":    func() error { _, err := s.GetMessages(c.ctx, []string{"m"}); return err },
			"DeleteMessages": func() error { return s.DeleteMessages(c.ctx, []string{"m"}) },
			"GetWorkingMemory": func() error {
				_, err := s.GetWorkingMemory(c.ctx, store.ScopeThread, "A")
				return err
			},
			"PutWorkingMemory": func() error {
				_, err := s.PutWorkingMemory(c.ctx, store.ScopeThread, "A", "wm", 0)
				return err
			},
			"AdvanceBoundary": func() error {
				_, err := s.AdvanceBoundary(c.ctx, "A", "r", bnd(1, 10, 0, "m"))
				return err
			},
		}
		for name, call := range calls {
			err := call()
			if !errors.Is(err, c.want) || (c.ctx != nil && !errors.Is(err, c.ctx.Err())) {
				t.Fatalf("%s with %v context: %v, want %v", name, c.want, err, c.want)
			}
		}
	}
	th, err := s.GetThread(ctx(), "A")
	if err != nil || th.Title != "t A" || th.Boundary != nil {
		t.Fatalf("thread after refused calls: %+v %v", th, err)
	}
	if _, err := s.GetThread(ctx(), "B"); !errors.Is(err, memerr.ErrThreadNotFound) {
		t.Fatalf("refused create wrote B: %v", err)
	}
	if got, _ := s.GetMessages(ctx(), []string{"m"}); len(got) != 0 {
		t.Fatal("refused save wrote a message")
	}
	if wm, _ := s.GetWorkingMemory(ctx(), store.ScopeThread, "A"); wm.Version != 0 {
		t.Fatal("refused put wrote working memory")
	}
}

// testBoundaryPullBack: a message inserted at or before the stored boundary
// (a turn's input, stamped at Begin, saved after another turn trimmed) pulls
// the boundary back to just before it; an update or a later message does not.
func testBoundaryPullBack(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	mustSave(t, s, msg("m1", "A", "r", "one", T(1)), msg("m5", "A", "r", "five", T(5)))
	advance(t, s, "A", bnd(5, 100, 10, "m5"))
	mustSave(t, s, msg("m6", "A", "r", "six", T(6)), msg("m5", "A", "r", "five again", T(5)))
	sameBoundary(t, "later message and update", stored(t, s, "A"), bnd(5, 100, 10, "m5"))
	mustSave(t, s, msg("late", "A", "r", "late question", T(3)))
	want := store.Boundary{CreatedAt: T(3).Add(-time.Microsecond), MaxTokens: 100, AtMaxRemoveTokens: 10}
	sameBoundaryLoose(t, "pulled back", stored(t, s, "A"), want)
	if b := stored(t, s, "A"); b.Excludes(T(3), "late") || !b.Excludes(T(1), "m1") {
		t.Fatalf("pulled-back boundary %+v hides the late message or shows m1", b)
	}
	// A batch of new messages pulls it back to just before its earliest.
	mustSave(t, s, msg("m7", "A", "r", "seven", T(7)), msg("later", "A", "r", "later question", T(2)))
	want.CreatedAt = T(2).Add(-time.Microsecond)
	sameBoundaryLoose(t, "pulled back by a batch", stored(t, s, "A"), want)
}

// testBoundaryClamp: a candidate never covers a message with a Seq above
// its SeenSeq (committed after the advancing turn read the thread).
func testBoundaryClamp(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	seen := mustSave(t, s, msg("m1", "A", "r", "one", T(1)), msg("m4", "A", "r", "four", T(4)))
	mustSave(t, s, msg("unseen", "A", "r", "committed later, stamped earlier", T(2)))
	cand := bnd(4, 100, 10, "m4")
	cand.SeenSeq = seen[1].Seq
	got := advance(t, s, "A", cand)
	want := store.Boundary{CreatedAt: T(2).Add(-time.Microsecond), MaxTokens: 100, AtMaxRemoveTokens: 10}
	sameBoundaryLoose(t, "clamped", got, want)
	sameBoundaryLoose(t, "stored clamped", stored(t, s, "A"), want)
	// A turn that read a boundary since pulled back by an insert did not see
	// the inserted message: its candidate goes no further than the stored
	// boundary.
	mustThread(t, s, "C", "r")
	mustSave(t, s, msg("c1", "C", "r", "one", T(1)), msg("c5", "C", "r", "five", T(5)))
	advance(t, s, "C", bnd(3, 100, 10, "c3"))
	mustSave(t, s, msg("c2", "C", "r", "inserted behind the boundary", T(2)))
	cand = bnd(5, 100, 10, "c5")
	cand.ReadAt, cand.SeenSeq = T(3), 1<<40 // read before c2 came; SeenSeq alone would not clamp
	pulled := store.Boundary{CreatedAt: T(2).Add(-time.Microsecond), MaxTokens: 100, AtMaxRemoveTokens: 10}
	sameBoundaryLoose(t, "not past a pulled-back boundary", advance(t, s, "C", cand), pulled)
	// A candidate that saw everything is not clamped; SeenSeq 0 means unknown.
	mustThread(t, s, "B", "r")
	all := mustSave(t, s, msg("b1", "B", "r", "one", T(1)), msg("b4", "B", "r", "four", T(4)))
	cand = bnd(4, 100, 10, "b4")
	cand.SeenSeq = max(all[0].Seq, all[1].Seq)
	sameBoundary(t, "saw all", advance(t, s, "B", cand), bnd(4, 100, 10, "b4"))
}

// sameBoundaryLoose compares boundaries treating nil and empty id lists alike.
func sameBoundaryLoose(t *testing.T, what string, got, want store.Boundary) {
	t.Helper()
	if !got.CreatedAt.Equal(want.CreatedAt) || len(got.MessageIDs) != len(want.MessageIDs) ||
		got.MaxTokens != want.MaxTokens || got.AtMaxRemoveTokens != want.AtMaxRemoveTokens {
		t.Fatalf("%s: boundary %+v, want %+v", what, got, want)
	}
}
