package storetest

import (
	"encoding/json"
	"testing"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// Raw is a driver's access to its rows, below the Store interface, for
// TestStoredContent.
type Raw struct {
	// Content returns the stored content of message id, as JSON.
	Content func(id string) []byte
	// InsertOld writes m (thread "t", resource "r") with content as given,
	// as an earlier version of the driver did.
	InsertOld func(m message.Message, content []byte)
	// Compact runs the driver's CompactContent with batches of one row.
	Compact func() (int, error)
	// CompactWith, when set, runs the driver's CompactContentWith with
	// batches of one row and opts' Progress; the first compaction then
	// goes through it and its progress reports are checked.
	CompactWith func(opts store.CompactOptions) (int, error)
}

// mirrorFields are the v4 mirrors message.Content.MarshalJSON derives.
var mirrorFields = []string{"content", "toolInvocations", "reasoning", "experimental_attachments"}

// mirrored is a message whose format-2 content has every kind of v4 mirror:
// text, a tool invocation, reasoning and a file.
func mirrored(id string, n int) message.Message {
	m := message.NewMessage(message.RoleAssistant, "the order ships tomorrow")
	m.Content.Parts = append(m.Content.Parts,
		message.Part{Type: message.PartReasoning, Reasoning: "check the order"},
		message.Part{Type: message.PartToolInvocation, ToolInvocation: &message.ToolInvocation{State: message.ToolStateResult,
			ToolCallID: "c-" + id, ToolName: "lookup", Args: json.RawMessage(`{"id":1}`), Result: json.RawMessage(`{"eta":"mon"}`)}},
		message.Part{Type: message.PartFile, Data: "https://x/y.png", MimeType: "image/png"})
	m.ID, m.ThreadID, m.ResourceID, m.CreatedAt = id, "t", "r", T(n)
	return m
}

// hasMirror reports whether content JSON carries a top-level v4 mirror.
func hasMirror(t *testing.T, raw []byte) bool {
	t.Helper()
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		t.Fatalf("stored content is not a JSON object: %v", err)
	}
	for _, k := range mirrorFields {
		if _, ok := top[k]; ok {
			return true
		}
	}
	return false
}

// TestStoredContent checks that s stores message content once (no derived
// v4 mirror in the row, one plain text part as its string), that rows an
// earlier version wrote (with mirrors, or one text part as an object) still
// decode to the same message, and that the driver's compaction rewrites
// them, resumably. s must be empty.
func TestStoredContent(t *testing.T, s store.Store, raw Raw) {
	cs := store.Check(s)
	mustThread(t, cs, "t", "r")
	mustSave(t, cs, mirrored("new", 1))
	old := mirrored("old", 2)
	withMirrors, _ := json.Marshal(old.Content) // the public encoding, as stores wrote it before
	raw.InsertOld(old, withMirrors)
	if hasMirror(t, raw.Content("new")) || !hasMirror(t, raw.Content("old")) {
		t.Fatalf("stored shapes: new %s, old %s", raw.Content("new"), raw.Content("old"))
	}
	check := func(when string) {
		t.Helper()
		got, err := cs.GetMessages(ctx(), []string{"new", "old"})
		if err != nil || len(got) != 2 {
			t.Fatalf("%s: GetMessages = %d, %v", when, len(got), err)
		}
		for _, g := range got {
			want, _ := json.Marshal(mirrored(g.ID, 0).Content)
			pub, _ := json.Marshal(g.Content)
			if string(pub) != string(want) {
				t.Fatalf("%s: %s decodes as %s, want %s", when, g.ID, pub, want)
			}
			if !hasMirror(t, pub) {
				t.Fatalf("%s: public JSON of %s lost its derived mirrors: %s", when, g.ID, pub)
			}
		}
	}
	texts := storedTexts(t, cs, raw)
	check("before compaction")
	if n, err := compactOnce(t, raw); err != nil || n != 2 {
		t.Fatalf("CompactContent = %d, %v; want 2 rows (the mirrored one, the long text one)", n, err)
	}
	if hasMirror(t, raw.Content("old")) {
		t.Fatalf("old row still mirrored after compaction: %s", raw.Content("old"))
	}
	check("after compaction")
	texts("after compaction", true)
	if n, err := raw.Compact(); err != nil || n != 0 {
		t.Fatalf("second CompactContent = %d, %v; want 0 (resumable, nothing left)", n, err)
	}
}

// compactOnce compacts through raw.CompactWith when the driver gives it,
// checking that progress is reported after every batch, never goes back,
// counts the rows rewritten, and reaches the whole table only at the end.
func compactOnce(t *testing.T, raw Raw) (int, error) {
	t.Helper()
	if raw.CompactWith == nil {
		return raw.Compact()
	}
	var reports []store.CompactProgress
	n, err := raw.CompactWith(store.CompactOptions{Batch: 1, Progress: func(p store.CompactProgress) {
		reports = append(reports, p)
	}})
	if err != nil {
		return n, err
	}
	if len(reports) == 0 {
		t.Fatalf("CompactContentWith rewrote %d rows and reported no progress", n)
	}
	for i, p := range reports {
		if p.Fraction < 0 || p.Fraction > 1 || i > 0 && (p.Fraction < reports[i-1].Fraction || p.Rewritten < reports[i-1].Rewritten) {
			t.Fatalf("progress went from %+v to %+v", reports[max(i-1, 0)], p)
		}
	}
	if last := reports[len(reports)-1]; last.Fraction != 1 || last.Rewritten != n {
		t.Fatalf("last progress %+v, want the whole table and %d rows", last, n)
	}
	if len(reports) > 1 && reports[0].Fraction == 1 {
		t.Fatalf("progress %+v after the first of %d batches: the whole table already", reports[0], len(reports))
	}
	return n, nil
}

// storedTexts saves a message of one plain text part, which must be stored
// as the text's JSON string (message.MarshalStored), and one of a text part
// with provider metadata, stored as an object, and writes a row of one text
// part as stores wrote it before the short form. It returns a check that
// the three decode as saved and that the old row is in the short form once
// compacted.
func storedTexts(t *testing.T, cs *store.Checked, raw Raw) func(when string, compacted bool) {
	t.Helper()
	const text = `plain "text", <b>`
	short := message.NewMessage(message.RoleUser, text)
	short.ID, short.ThreadID, short.ResourceID, short.CreatedAt = "short", "t", "r", T(3)
	meta := short
	meta.ID, meta.CreatedAt = "meta", T(4)
	meta.Content.Parts = []message.Part{message.TextPart(text)}
	meta.Content.Parts[0].ProviderMetadata = json.RawMessage(`{"p":{"cache":true}}`)
	longForm := short
	longForm.ID, longForm.CreatedAt = "long", T(5)
	mustSave(t, cs, short, meta)
	raw.InsertOld(longForm, []byte(`{"format":2,"parts":[{"text":"plain \"text\", \u003cb\u003e","type":"text"}]}`))
	wantShort, _ := json.Marshal(text)
	check := func(when string, compacted bool) {
		t.Helper()
		if got := raw.Content("short"); string(got) != string(wantShort) {
			t.Fatalf("%s: one text part stored as %s, want %s", when, got, wantShort)
		}
		if got := raw.Content("long"); compacted != (string(got) == string(wantShort)) {
			t.Fatalf("%s (compacted %v): the old row of one text part is %s", when, compacted, got)
		}
		got, err := cs.GetMessages(ctx(), []string{"short", "meta", "long"})
		if err != nil || len(got) != 3 {
			t.Fatalf("%s: GetMessages = %d, %v", when, len(got), err)
		}
		for _, g := range got {
			want := short.Content
			if g.ID == "meta" {
				want = meta.Content
			}
			if pub, wantPub := mustJSON(t, g.Content), mustJSON(t, want); pub != wantPub {
				t.Fatalf("%s: %s decodes as %s, want %s", when, g.ID, pub, wantPub)
			}
		}
	}
	check("before compaction", false)
	return check
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
