package postgres

import (
	"encoding/json"
	"testing"
	"time"

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
	m.ID, m.ThreadID, m.ResourceID = id, "t", "r"
	m.CreatedAt = time.Date(2026, 1, 1, 0, 0, n, 0, time.UTC)
	return m
}

func TestStoredContentHasNoMirrorAndOldRowsDecode(t *testing.T) {
	s := openFresh(t)
	if _, err := s.SaveThread(bg(), core.Thread{ID: "t", ResourceID: "r", CreatedAt: time.Now(), UpdatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveMessages(bg(), []core.Message{mirrored("new", 1)}); err != nil {
		t.Fatal(err)
	}
	// An old row, written as SaveMessages did before: the public encoding, mirrors included.
	old := mirrored("old", 2)
	withMirrors, _ := json.Marshal(old.Content)
	if _, err := s.pool.Exec(bg(), `INSERT INTO `+s.q.messages+` (id, thread_id, resource_id, role, content, created_at)
		VALUES ($1, 't', 'r', 'assistant', $2::jsonb, $3)`, old.ID, string(withMirrors), old.CreatedAt); err != nil {
		t.Fatal(err)
	}
	mirroredIDs := func() (ids []string) {
		rows, err := s.pool.Query(bg(), `SELECT id FROM `+s.q.messages+` WHERE content ?| array['content', 'toolInvocations', 'reasoning', 'experimental_attachments'] ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			_ = rows.Scan(&id)
			ids = append(ids, id)
		}
		return ids
	}
	if got := mirroredIDs(); len(got) != 1 || got[0] != "old" {
		t.Fatalf("rows with a mirror = %v, want only the old one", got)
	}
	check := func(when string) {
		t.Helper()
		got, err := s.GetMessages(bg(), []string{"new", "old"})
		if err != nil || len(got) != 2 {
			t.Fatalf("%s: GetMessages = %d, %v", when, len(got), err)
		}
		for _, g := range got {
			want, _ := json.Marshal(mirrored(g.ID, 0).Content)
			if pub, _ := json.Marshal(g.Content); string(pub) != string(want) {
				t.Fatalf("%s: %s decodes as %s, want %s", when, g.ID, pub, want)
			}
		}
	}
	check("before compaction")
	if n, err := s.CompactContent(bg(), 1); err != nil || n != 1 {
		t.Fatalf("CompactContent = %d, %v; want 1 row", n, err)
	}
	if got := mirroredIDs(); len(got) != 0 {
		t.Fatalf("rows with a mirror after compaction: %v", got)
	}
	check("after compaction")
	if n, err := s.CompactContent(bg(), 1); err != nil || n != 0 {
		t.Fatalf("second CompactContent = %d, %v; want 0 (resumable, nothing left)", n, err)
	}
}
