package langchaingo

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/sqlite"
	"github.com/agentmem/agentmem/core/vector/local"
)

// recallMemory is a Memory over SQLite and the local vector store with the
// recall tool on, holding two messages of resource "u" and one of "v".
func recallMemory(t *testing.T) *core.Memory {
	t.Helper()
	bg := context.Background()
	st, err := sqlite.Open(bg, filepath.Join(t.TempDir(), "memory.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	m, err := core.New(core.Options{Store: st, Vector: local.New(), Embedder: local.NewHashEmbedder(64),
		Config: core.Config{SemanticRecall: &core.SemanticRecall{Retrieval: &core.Retrieval{}}}})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)
	var msgs []core.Message
	for i, s := range []struct{ thread, res, text string }{
		{"t1", "u", "My sister's wedding is in Lisbon in June."},
		{"t2", "u", "I switched my phone plan to the cheaper one."},
		{"t3", "v", "My sister's wedding is in Oslo."},
	} {
		if _, err := m.CreateThread(bg, core.ThreadInput{ID: s.thread, ResourceID: s.res}); err != nil {
			t.Fatal(err)
		}
		msg := core.NewMessage(core.RoleUser, s.text)
		msg.ThreadID, msg.ResourceID, msg.CreatedAt = s.thread, s.res, at.Add(time.Duration(i)*time.Hour)
		msgs = append(msgs, msg)
	}
	if _, err := m.SaveMessages(bg, msgs, nil); err != nil {
		t.Fatal(err)
	}
	return m
}

// The recall tool reaches a langchaingo agent through Tools: JSON input or
// the query as plain text, fenced results of the thread's resource only.
func TestRecallToolThroughLangchaingo(t *testing.T) {
	m := recallMemory(t)
	ct, err := m.Tools(context.Background(), "t2", "u", nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := Tools(ct)
	if len(ts) != 1 || ts[0].Name() != core.RecallToolName {
		t.Fatalf("tools %v", ts)
	}
	if d := ts[0].Description(); !strings.Contains(d, `"query" as plain text`) {
		t.Fatalf("description does not say how to pass the query: %s", d)
	}
	for _, input := range []string{`{"query":"where is the wedding"}`, "where is the wedding"} {
		out, err := ts[0].Call(context.Background(), input)
		if err != nil {
			t.Fatal(err)
		}
		var res struct {
			Messages string `json:"messages"`
			Found    int    `json:"found"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%q: result %s: %v", input, out, err)
		}
		if !strings.Contains(res.Messages, "[thread t1] [2024-03-01 10:00 UTC] User: My sister's wedding is in Lisbon") {
			t.Fatalf("%q: the Lisbon message is missing: %s", input, out)
		}
		if strings.Contains(res.Messages, "Oslo") {
			t.Fatalf("%q: another resource's message: %s", input, out)
		}
	}
	out, err := ts[0].Call(context.Background(), `{"query":"wedding","from":"someday"}`)
	if err != nil || !strings.Contains(out, `"error"`) {
		t.Fatalf("bad date: %s, %v", out, err)
	}
}
