package sqlite

import (
	"encoding/json"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/message"
)

// mirrored is a message whose format-2 content has every kind of v4 mirror:
// text, a tool invocation, reasoning and a file.
func mirrored(id string, n int) core.Message {
	m := core.NewMessage(core.RoleAssistant, "the order ships tomorrow")
	m.Content.Parts = append(m.Content.Parts,
		message.Part{Type: message.PartReasoning, Reasoning: "check the order"},
		message.Part{Type: message.PartToolInvocation, ToolInvocation: &message.ToolInvocation{State: message.ToolStateResult,
			ToolCallID: "c-" + id, ToolName: "lookup", Args: json.RawMessage(`{"id":1}`), Result: json.RawMessage(`{"eta":"mon"}`)}},
		message.Part{Type: message.PartFile, Data: "https://x/y.png", MimeType: "image/png"})
	m.ID, m.ThreadID, m.ResourceID, m.CreatedAt = id, "t", "r", at(n)
	return m
}

// hasMirror reports whether stored content carries a top-level v4 mirror.
func hasMirror(t *testing.T, raw string) bool {
	t.Helper()
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &top); err != nil {
		t.Fatalf("stored content is not a JSON object: %v", err)
	}
	for _, k := range []string{"content", "toolInvocations", "reasoning", "experimental_attachments"} {
		if _, ok := top[k]; ok {
			return true
		}
	}
	return false
}

func TestStoredContentHasNoMirrorAndOldRowsDecode(t *testing.T) {
	s := openTemp(t)
	thread(t, s, "t", "r")
	fresh := mirrored("new", 1)
	if _, err := s.SaveMessages(bg(), []core.Message{fresh}); err != nil {
		t.Fatal(err)
	}
	// An old row, written as SaveMessages did before: the public encoding, mirrors included.
	old := mirrored("old", 2)
	withMirrors, _ := json.Marshal(old.Content)
	if _, err := s.w.Exec(`INSERT INTO messages (id, thread_id, resource_id, role, type, content, created_at) VALUES (?, 't', 'r', 'assistant', '', ?, ?)`,
		old.ID, string(withMirrors), old.CreatedAt.UnixMicro()); err != nil {
		t.Fatal(err)
	}
	raw := func(id string) string {
		var c string
		if err := s.w.QueryRow(`SELECT content FROM messages WHERE id = ?`, id).Scan(&c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	if hasMirror(t, raw("new")) || !hasMirror(t, raw("old")) {
		t.Fatalf("stored shapes: new %s, old %s", raw("new"), raw("old"))
	}
	check := func(when string) {
		t.Helper()
		got, err := s.GetMessages(bg(), []string{"new", "old"})
		if err != nil || len(got) != 2 {
			t.Fatalf("%s: GetMessages = %d, %v", when, len(got), err)
		}
		for _, g := range got {
			want, _ := json.Marshal(mirrored(g.ID, 0).Content)
			pub, _ := json.Marshal(g.Content)
			if string(pub) != string(want) {
				t.Fatalf("%s: %s decodes as %s, want %s", when, g.ID, pub, want)
			}
		}
		if pub, _ := json.Marshal(got[0].Content); !hasMirror(t, string(pub)) {
			t.Fatalf("public JSON lost its derived mirrors: %s", pub)
		}
	}
	check("before compaction")
	if n, err := s.CompactContent(bg(), 1); err != nil || n != 1 {
		t.Fatalf("CompactContent = %d, %v; want 1 row", n, err)
	}
	if hasMirror(t, raw("old")) {
		t.Fatalf("old row still mirrored after compaction: %s", raw("old"))
	}
	check("after compaction")
	if n, err := s.CompactContent(bg(), 1); err != nil || n != 0 {
		t.Fatalf("second CompactContent = %d, %v; want 0 (resumable, nothing left)", n, err)
	}
}
