package storetest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// fiveInA seeds thread A (M1..M5 at T1..T5, resource rA) and thread B (one message).
func fiveInA(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "rA")
	mustThread(t, s, "B", "rA")
	for i := 1; i <= 5; i++ {
		mustSave(t, s, msg(fmt.Sprintf("M%d", i), "A", "rA", fmt.Sprintf("Message %d", i), T(i)))
	}
	mustSave(t, s, msg("B1", "B", "rA", "other thread", T(3)))
}

func testMessagesListDefault(t *testing.T, s *store.Checked) {
	fiveInA(t, s)
	p := list(t, s, store.MessageQuery{ThreadID: "A", PerPage: store.PerPageAll, IncludeTotal: true})
	eq(t, "ids", ids(p.Messages), []string{"M1", "M2", "M3", "M4", "M5"})
	if p.Total != 5 || p.HasMore {
		t.Fatalf("total %d more %v", p.Total, p.HasMore)
	}
	for _, m := range p.Messages {
		if m.Content.Format != 2 || len(m.Content.Parts) != 1 || m.ThreadID != "A" || m.ResourceID != "rA" || m.Seq == 0 {
			t.Fatalf("bad message %+v", m)
		}
	}
	p = list(t, s, store.MessageQuery{ThreadID: "A", PerPage: 2, Direction: store.Desc})
	eq(t, "newest two", ids(p.Messages), []string{"M5", "M4"})
	if !p.HasMore {
		t.Fatal("HasMore should be true")
	}
}

func testMessagesPaging(t *testing.T, s *store.Checked) {
	fiveInA(t, s)
	want := [][]string{{"M1", "M2"}, {"M3", "M4"}, {"M5"}}
	for page, w := range want {
		p := list(t, s, store.MessageQuery{ThreadID: "A", PerPage: 2, Page: page, IncludeTotal: true})
		eq(t, fmt.Sprint("page ", page), ids(p.Messages), w)
		if p.Total != 5 || p.HasMore != (page < 2) {
			t.Fatalf("page %d total %d more %v", page, p.Total, p.HasMore)
		}
	}
	p := list(t, s, store.MessageQuery{ThreadID: "A", PerPage: 0, IncludeTotal: true})
	if len(p.Messages) != 0 {
		t.Fatalf("perPage 0 listed %v", ids(p.Messages))
	}
}

func testMessagesResourceFilter(t *testing.T, s *store.Checked) {
	fiveInA(t, s)
	p := list(t, s, store.MessageQuery{ThreadID: "A", ResourceID: "different-resource", PerPage: store.PerPageAll})
	eq(t, "other resource", ids(p.Messages), nil)
	p = list(t, s, store.MessageQuery{ThreadID: "A", ResourceID: "rA", PerPage: store.PerPageAll, IncludeTotal: true})
	if p.Total != 5 {
		t.Fatalf("total %d", p.Total)
	}
}

func testMessagesDateRange(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	for i := 0; i < 10; i++ {
		mustSave(t, s, msg(fmt.Sprintf("m%d", i), "A", "r", "x", T(i)))
	}
	start, end := T(5), T(7)
	p := list(t, s, store.MessageQuery{ThreadID: "A", PerPage: 3, Range: store.DateRange{Start: &start}, IncludeTotal: true})
	eq(t, "start inclusive", ids(p.Messages), []string{"m5", "m6", "m7"})
	if p.Total != 5 {
		t.Fatalf("total %d, want 5", p.Total)
	}
	p = list(t, s, store.MessageQuery{ThreadID: "A", PerPage: store.PerPageAll, Range: store.DateRange{Start: &start, End: &end, StartExclusive: true}})
	eq(t, "start exclusive", ids(p.Messages), []string{"m6", "m7"})
	p = list(t, s, store.MessageQuery{ThreadID: "A", PerPage: store.PerPageAll, Range: store.DateRange{Start: &start, End: &end, EndExclusive: true}})
	eq(t, "end exclusive", ids(p.Messages), []string{"m5", "m6"})
}

func testMessagesExcludeIDs(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	for i := 0; i < 8; i++ {
		mustSave(t, s, msg(fmt.Sprintf("m%d", i), "A", "r", "x", T(i)))
	}
	exclude := []string{"m1", "m2", "m6", "unknown"}
	p := list(t, s, store.MessageQuery{ThreadID: "A", PerPage: 3, ExcludeIDs: exclude, IncludeTotal: true})
	eq(t, "first page", ids(p.Messages), []string{"m0", "m3", "m4"})
	if p.Total != 5 || !p.HasMore {
		t.Fatalf("total %d, hasMore %v; want 5, true", p.Total, p.HasMore)
	}
	start := T(2)
	p = list(t, s, store.MessageQuery{ThreadID: "A", PerPage: 3, Direction: store.Desc, Range: store.DateRange{Start: &start}, ExcludeIDs: exclude})
	eq(t, "newest with a range", ids(p.Messages), []string{"m7", "m5", "m4"})
	p = list(t, s, store.MessageQuery{ThreadID: "A", PerPage: 1, ExcludeIDs: exclude, Include: []store.Include{{ID: "m2", Before: 1}}})
	eq(t, "listed", ids(p.Messages), []string{"m0"})
	eq(t, "include windows are not filtered", ids(p.Included), []string{"m1", "m2"})
	w, err := s.ListWindow(ctx(), store.MessageQuery{ThreadID: "A", PerPage: 4, Direction: store.Desc, ExcludeIDs: exclude},
		store.WindowFit{Encoding: "e", Fits: 1000, Keep: 100})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "window", ids(w.Messages), []string{"m7", "m5", "m4", "m3"})
	for _, bad := range [][]string{{""}, {"a\x00"}, {string([]byte{0xff})}} {
		_, err := s.ListMessages(ctx(), store.MessageQuery{ThreadID: "A", PerPage: 1, ExcludeIDs: bad})
		wantCode(t, err, memerr.ErrInvalidArgument)
	}
}

func testMessagesCursor(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	var saved []message.Message
	for i := 0; i < 7; i++ {
		at := T(i / 2) // pairs share timestamps: the cursor must use Seq too
		saved = append(saved, mustSave(t, s, msg(fmt.Sprintf("m%d", i), "A", "r", "x", at))...)
	}
	var got []string
	var cur *store.Cursor
	for {
		p := list(t, s, store.MessageQuery{ThreadID: "A", PerPage: 2, Direction: store.Desc, Before: cur})
		for _, m := range p.Messages {
			got = append(got, m.ID)
		}
		if !p.HasMore {
			break
		}
		last := p.Messages[len(p.Messages)-1]
		cur = &store.Cursor{CreatedAt: last.CreatedAt, Seq: last.Seq}
	}
	eq(t, "keyset pages", got, []string{"m6", "m5", "m4", "m3", "m2", "m1", "m0"})
	if saved[1].Seq <= saved[0].Seq {
		t.Fatalf("seq not increasing: %d, %d", saved[0].Seq, saved[1].Seq)
	}
}

func testMessagesIncludeWindows(t *testing.T, s *store.Checked) {
	mustThread(t, s, "T1", "r")
	mustThread(t, s, "T2", "r")
	mustThread(t, s, "T3", "other")
	mustSave(t, s, msg("first", "T1", "r", "First", T(0)), msg("second", "T1", "r", "Second", T(1)), msg("third", "T1", "r", "Third", T(2)))
	mustSave(t, s, msg("fourth", "T2", "r", "Fourth", T(3)), msg("fifth", "T2", "r", "Fifth", T(4)), msg("sixth", "T2", "r", "Sixth", T(5)))
	mustSave(t, s, msg("x", "T3", "other", "X", T(6)))

	p := list(t, s, store.MessageQuery{ThreadID: "T1", Include: []store.Include{{ID: "second", Before: 2, After: 2}, {ID: "fifth", Before: 2, After: 2}}})
	eq(t, "two windows", ids(p.Included), []string{"first", "second", "third", "fourth", "fifth", "sixth"})
	p = list(t, s, store.MessageQuery{ThreadID: "T1", Include: []store.Include{{ID: "fifth", Before: 1, After: 30}}})
	eq(t, "prev1 next30", ids(p.Included), []string{"fourth", "fifth", "sixth"})
	p = list(t, s, store.MessageQuery{ThreadID: "T2", Include: []store.Include{{ID: "second", Before: 1, After: 1}}})
	eq(t, "cross-thread target", ids(p.Included), []string{"first", "second", "third"})
	p = list(t, s, store.MessageQuery{ThreadID: "T1", Include: []store.Include{{ID: "third", Before: 0, After: 0}, {ID: "missing", Before: 1}}})
	eq(t, "target only, missing skipped", ids(p.Included), []string{"third"})
	// Listed rows are not repeated in Included.
	p = list(t, s, store.MessageQuery{ThreadID: "T1", PerPage: 2, Direction: store.Desc, Include: []store.Include{{ID: "fifth", Before: 1, After: 1}, {ID: "second", Before: 1}}})
	eq(t, "listed", ids(p.Messages), []string{"third", "second"})
	eq(t, "included", ids(p.Included), []string{"first", "fourth", "fifth", "sixth"})
}

func testMessagesIncludeResourceScope(t *testing.T, s *store.Checked) {
	mustThread(t, s, "mine", "r1")
	mustThread(t, s, "theirs", "r2")
	mustSave(t, s, msg("a", "mine", "r1", "a", T(0)))
	mustSave(t, s, msg("b", "theirs", "r2", "b", T(1)), msg("c", "theirs", "r2", "c", T(2)))
	p := list(t, s, store.MessageQuery{ThreadID: "mine", ResourceID: "r1", PerPage: store.PerPageAll, Include: []store.Include{{ID: "b", Before: 1, After: 1}}})
	eq(t, "listed", ids(p.Messages), []string{"a"})
	eq(t, "foreign include", ids(p.Included), nil)
}

func testMessagesAll(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	var batch []message.Message
	for i := 0; i < 55; i++ {
		batch = append(batch, msg(fmt.Sprintf("m%02d", i), "A", "r", "x", T(i)))
	}
	mustSave(t, s, batch...)
	p := list(t, s, store.MessageQuery{ThreadID: "A", PerPage: store.PerPageAll})
	if len(p.Messages) != 55 || p.HasMore {
		t.Fatalf("all: %d more %v", len(p.Messages), p.HasMore)
	}
}

func testMessagesBadThreadID(t *testing.T, s *store.Checked) {
	for _, id := range []string{"", "   "} {
		_, err := s.ListMessages(ctx(), store.MessageQuery{ThreadID: id})
		wantCode(t, err, memerr.ErrMissingThreadID)
	}
	_, err := s.ListMessages(ctx(), store.MessageQuery{ThreadID: "x", Page: -1})
	wantCode(t, err, memerr.ErrInvalidArgument)
	_, err = s.ListMessages(ctx(), store.MessageQuery{ThreadID: "x", PerPage: -7})
	wantCode(t, err, memerr.ErrInvalidArgument)
}

func testMessagesUpsert(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	first := mustSave(t, s, msg("m", "A", "r", "Original", T(1)))[0]
	again := msg("m", "A", "r", "Updated", T(9))
	out := mustSave(t, s, again)[0]
	if !out.CreatedAt.Equal(T(1)) || out.Seq != first.Seq {
		t.Fatalf("upsert changed createdAt/seq: %v/%d vs %v/%d", out.CreatedAt, out.Seq, T(1), first.Seq)
	}
	p := list(t, s, store.MessageQuery{ThreadID: "A", PerPage: store.PerPageAll})
	eq(t, "texts", texts(p.Messages), []string{"Updated"})
	if !p.Messages[0].CreatedAt.Equal(T(1)) {
		t.Fatalf("stored createdAt = %v", p.Messages[0].CreatedAt)
	}
}

// testSaveLeavesInput: SaveMessages (and SaveMessagesBulk) neither writes
// the stored CreatedAt and Seq into the caller's messages nor returns them
// in the caller's slice, and a store that promises to keep nothing of a
// batch (store.BatchReleaser; core reuses its batches) still reads back
// what it saved once the batches are cleared.
func testSaveLeavesInput(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	east := time.FixedZone("east", 3*3600)
	batches := [][]message.Message{
		{msg("m1", "A", "r", "one", T(1).In(east)), msg("m2", "A", "r", "two", T(2).In(east))},
		{msg("m1", "A", "r", "one again", T(5).In(east)), msg("m3", "A", "r", "three", T(6).In(east))}, // an upsert and a new id
	}
	bulk := [][]message.Message{ // SaveMessagesBulk has SaveMessages' contract
		{msg("m4", "A", "r", "four", T(7).In(east)), msg("m5", "A", "r", "five", T(8).In(east))},
	}
	for i, in := range append(batches, bulk...) {
		save := s.SaveMessages
		if i >= len(batches) {
			save = s.SaveMessagesBulk
		}
		before := slices.Clone(in)
		out, err := save(ctx(), in)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(in, before) {
			t.Fatalf("batch %d: SaveMessages changed its input:\n%+v\nwas\n%+v", i, in, before)
		}
		if len(out) != len(in) || &out[0] == &in[0] {
			t.Fatalf("batch %d: SaveMessages returned %d messages in the caller's slice", i, len(out))
		}
		clear(in) // a caller may reuse its slice once SaveMessages returns
	}
	got, err := s.GetMessages(ctx(), []string{"m1", "m2", "m3", "m4", "m5"})
	if err != nil {
		t.Fatal(err)
	}
	texts := make([]string, len(got))
	for i := range got {
		texts[i] = got[i].Text()
	}
	eq(t, "stored texts", texts, []string{"one again", "two", "three", "four", "five"})
}

func testMessagesMove(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	mustThread(t, s, "B", "r")
	mustSave(t, s, msg("m", "A", "r", "x", T(1)))
	mustSave(t, s, msg("m", "B", "r", "x", T(1)))
	eq(t, "old thread", ids(list(t, s, store.MessageQuery{ThreadID: "A", PerPage: store.PerPageAll}).Messages), nil)
	eq(t, "new thread", ids(list(t, s, store.MessageQuery{ThreadID: "B", PerPage: store.PerPageAll}).Messages), []string{"m"})
}

func testMessagesValidationAtomic(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	good := msg("good", "A", "r", "x", T(1))
	bad := []message.Message{
		msg("noThread", "", "r", "x", T(1)),
		msg("noResource", "A", "", "x", T(1)),
		msg("unknownThread", "nope", "r", "x", T(1)),
		msg("", "A", "r", "x", T(1)),
		{ID: "noRole", ThreadID: "A", ResourceID: "r", CreatedAt: T(1)},
	}
	for _, b := range bad {
		if _, err := s.SaveMessages(ctx(), []message.Message{good, b}); err == nil {
			t.Fatalf("batch with %q saved", b.ID)
		}
	}
	_, err := s.SaveMessages(ctx(), []message.Message{good, msg("x", "nope", "r", "x", T(1))})
	wantCode(t, err, memerr.ErrThreadNotFound)
	_, err = s.SaveMessages(ctx(), []message.Message{good, msg("x", "", "r", "x", T(1))})
	wantCode(t, err, memerr.ErrMissingThreadID)
	eq(t, "nothing written", ids(list(t, s, store.MessageQuery{ThreadID: "A", PerPage: store.PerPageAll}).Messages), nil)
}

func testMessagesOwnership(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r1")
	_, err := s.SaveMessages(ctx(), []message.Message{msg("m1", "A", "r1", "ok", T(1)), msg("m2", "A", "r2", "forged", T(2))})
	wantCode(t, err, memerr.ErrResourceMismatch)
	eq(t, "nothing written", ids(list(t, s, store.MessageQuery{ThreadID: "A", PerPage: store.PerPageAll}).Messages), nil)
	// A message id of another resource cannot be taken over.
	mustThread(t, s, "B", "r2")
	mustSave(t, s, msg("owned", "A", "r1", "mine", T(3)))
	_, err = s.SaveMessages(ctx(), []message.Message{msg("owned", "B", "r2", "stolen", T(4))})
	wantCode(t, err, memerr.ErrResourceMismatch)
	got, _ := s.GetMessages(ctx(), []string{"owned"})
	if len(got) != 1 || got[0].Text() != "mine" || got[0].ThreadID != "A" {
		t.Fatalf("takeover changed the message: %+v", got)
	}
}

func testMessagesSameTimestampOrder(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	// ids deliberately out of lexical order: insertion order must win.
	for _, id := range []string{"z", "a", "m", "b"} {
		mustSave(t, s, msg(id, "A", "r", id, T(0)))
	}
	eq(t, "asc", ids(list(t, s, store.MessageQuery{ThreadID: "A", PerPage: store.PerPageAll}).Messages), []string{"z", "a", "m", "b"})
	eq(t, "desc", ids(list(t, s, store.MessageQuery{ThreadID: "A", PerPage: store.PerPageAll, Direction: store.Desc}).Messages), []string{"b", "m", "a", "z"})
}

func testMessagesContentFidelity(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	raw := `{"format":2,"parts":[{"type":"step-start"},{"type":"text","text":"It ships tomorrow.","providerMetadata":{"openai":{"itemId":"i1"}}},` +
		`{"type":"tool-invocation","toolInvocation":{"state":"result","toolCallId":"call-1","toolName":"lookupOrder","args":{"orderId":"A-1"},"result":{"eta":"2026-10-30"}}},` +
		`{"type":"reasoning","reasoning":"think","details":[{"type":"text","text":"think"}]},` +
		`{"type":"data-custom","data":{"x":[1,2,3]},"id":"d1"},{"type":"file","data":"https://x/y.png","mimeType":"image/png"}],` +
		`"metadata":{"source":"import","nested":{"k":[1,"two"]}},"annotations":[{"a":1}],` +
		`"content":"{\"userInput\":\"test data\",\"metadata\":{\"key\":\"value\"}}"}`
	var c message.Content
	if err := json.Unmarshal([]byte(raw), &c); err != nil {
		t.Fatal(err)
	}
	m := message.Message{ID: "m", Role: message.RoleAssistant, ThreadID: "A", ResourceID: "r", CreatedAt: T(1), Type: "v2", Content: c}
	mustSave(t, s, m)
	got := list(t, s, store.MessageQuery{ThreadID: "A", PerPage: store.PerPageAll}).Messages[0]
	want, _ := json.Marshal(c)
	have, _ := json.Marshal(got.Content)
	if string(want) != string(have) {
		t.Fatalf("content changed:\n got %s\nwant %s", have, want)
	}
	if got.Role != message.RoleAssistant || got.Type != "v2" {
		t.Fatalf("role/type = %s/%s", got.Role, got.Type)
	}
	big := strings.Repeat("€uro ", 200_000) // ~1.2 MB of multi-byte text
	mustSave(t, s, msg("big", "A", "r", big, T(2)))
	gotBig, _ := s.GetMessages(ctx(), []string{"big"})
	if len(gotBig) != 1 || gotBig[0].Text() != big {
		t.Fatal("large message did not round-trip")
	}
}

func testMessagesTokens(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	m := msg("m", "A", "r", "hello world", T(1))
	m.Tokens, m.TokenEncoding = 7, "o200k_base"
	mustSave(t, s, m)
	got, _ := s.GetMessages(ctx(), []string{"m"})
	if got[0].Tokens != 7 || got[0].TokenEncoding != "o200k_base" {
		t.Fatalf("tokens = %d %q", got[0].Tokens, got[0].TokenEncoding)
	}
}

func testGetMessages(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r1")
	mustThread(t, s, "B", "r1")
	mustThread(t, s, "C", "r2")
	mustSave(t, s, msg("c1", "C", "r2", "x", T(3)), msg("a1", "A", "r1", "x", T(1)), msg("b1", "B", "r1", "x", T(2)))
	got, err := s.GetMessages(ctx(), nil)
	if err != nil || len(got) != 0 {
		t.Fatalf("empty ids: %v %v", got, err)
	}
	got, _ = s.GetMessages(ctx(), []string{"c1", "b1", "missing", "a1"})
	eq(t, "ascending", ids(got), []string{"a1", "b1", "c1"})
}

func testDeleteMessages(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	mustSave(t, s, msg("m1", "A", "r", "Message 1", T(1)), msg("m2", "A", "r", "Message 2", T(2)), msg("m3", "A", "r", "Message 3", T(3)))
	if err := s.DeleteMessages(ctx(), []string{"m2", "unknown"}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteMessages(ctx(), nil); err != nil {
		t.Fatal(err)
	}
	eq(t, "left", texts(list(t, s, store.MessageQuery{ThreadID: "A", PerPage: store.PerPageAll}).Messages), []string{"Message 1", "Message 3"})
}

func testUpdatedAtBump(t *testing.T, s *store.Checked) {
	mustThread(t, s, "A", "r")
	mustThread(t, s, "B", "r")
	step := func(what string, id string, fn func()) {
		t.Helper()
		before, _ := s.GetThread(ctx(), id)
		time.Sleep(2 * time.Millisecond)
		fn()
		after, _ := s.GetThread(ctx(), id)
		if !after.UpdatedAt.After(before.UpdatedAt) {
			t.Fatalf("%s: updatedAt %v not after %v", what, after.UpdatedAt, before.UpdatedAt)
		}
	}
	step("save", "A", func() { mustSave(t, s, msg("m", "A", "r", "x", T(1))) })
	step("move (source)", "A", func() { mustSave(t, s, msg("m", "B", "r", "x", T(1))) })
	step("delete", "B", func() { _ = s.DeleteMessages(ctx(), []string{"m"}) })
}

func testWorkingMemoryVersions(t *testing.T, s *store.Checked) {
	wm, err := s.GetWorkingMemory(ctx(), store.ScopeResource, "r")
	if err != nil || wm.Version != 0 || wm.Data != "" {
		t.Fatalf("fresh = %+v %v", wm, err)
	}
	wm, err = s.PutWorkingMemory(ctx(), store.ScopeResource, "r", "one", 0)
	if err != nil || wm.Version != 1 {
		t.Fatalf("put = %+v %v", wm, err)
	}
	_, err = s.PutWorkingMemory(ctx(), store.ScopeResource, "r", "stale", 0)
	wantCode(t, err, memerr.ErrConflict)
	wm, _ = s.GetWorkingMemory(ctx(), store.ScopeResource, "r")
	if wm.Data != "one" || wm.Version != 1 {
		t.Fatalf("after conflict = %+v", wm)
	}
	if _, err := s.PutWorkingMemory(ctx(), store.ScopeResource, "r", "two", 1); err != nil {
		t.Fatal(err)
	}
	r, _ := s.GetResource(ctx(), "r")
	if r.WorkingMemory != "two" {
		t.Fatalf("resource wm = %q", r.WorkingMemory)
	}
}

func testWorkingMemoryThreadScope(t *testing.T, s *store.Checked) {
	_, err := s.GetWorkingMemory(ctx(), store.ScopeThread, "missing")
	wantCode(t, err, memerr.ErrThreadNotFound)
	_, err = s.PutWorkingMemory(ctx(), store.ScopeThread, "missing", "x", 0)
	wantCode(t, err, memerr.ErrThreadNotFound)
	mustThread(t, s, "t1", "r")
	mustThread(t, s, "t2", "r")
	if _, err := s.PutWorkingMemory(ctx(), store.ScopeThread, "t1", "thread one", 0); err != nil {
		t.Fatal(err)
	}
	w1, _ := s.GetWorkingMemory(ctx(), store.ScopeThread, "t1")
	w2, _ := s.GetWorkingMemory(ctx(), store.ScopeThread, "t2")
	wr, _ := s.GetWorkingMemory(ctx(), store.ScopeResource, "r")
	if w1.Data != "thread one" || w2.Data != "" || wr.Data != "" {
		t.Fatalf("isolation: %q %q %q", w1.Data, w2.Data, wr.Data)
	}
	title := "still here"
	if _, err := s.UpdateThread(ctx(), "t1", &title, map[string]any{"x": "y"}); err != nil {
		t.Fatal(err)
	}
	w1, _ = s.GetWorkingMemory(ctx(), store.ScopeThread, "t1")
	if w1.Data != "thread one" {
		t.Fatal("UpdateThread clobbered working memory")
	}
}

func testInjection(t *testing.T, s *store.Checked) {
	evil := []string{`o'brien`, `x"; DROP TABLE threads; --`, `a;b`, `--comment`, `ünï©ødé 漢字 🙂`, `\'\\`, `$1`, `%_`}
	for i, id := range evil {
		res := "res " + id
		_, err := s.SaveThread(ctx(), store.Thread{ID: id, ResourceID: res, Title: id, Metadata: map[string]any{"k_" + fmt.Sprint(i): id}, CreatedAt: T(i), UpdatedAt: T(i)})
		if err != nil {
			t.Fatalf("thread %q: %v", id, err)
		}
		mustSave(t, s, msg("m "+id, id, res, id, T(i)))
		th, err := s.GetThread(ctx(), id)
		if err != nil || th.Title != id {
			t.Fatalf("get %q: %+v %v", id, th, err)
		}
		p, err := s.ListThreads(ctx(), store.ThreadQuery{ResourceID: res, Metadata: map[string]any{"k_" + fmt.Sprint(i): id}})
		if err != nil || len(p.Threads) != 1 || p.Threads[0].ID != id {
			t.Fatalf("filter %q: %+v %v", id, p, err)
		}
		ms := list(t, s, store.MessageQuery{ThreadID: id, ResourceID: res, PerPage: store.PerPageAll})
		if len(ms.Messages) != 1 || ms.Messages[0].Text() != id {
			t.Fatalf("messages of %q: %+v", id, ms)
		}
		if _, err := s.PutWorkingMemory(ctx(), store.ScopeResource, res, id, 0); err != nil {
			t.Fatal(err)
		}
	}
	all, _ := s.ListThreads(ctx(), store.ThreadQuery{PerPage: store.PerPageAll})
	if len(all.Threads) != len(evil) {
		t.Fatalf("threads = %d, want %d", len(all.Threads), len(evil))
	}
}
