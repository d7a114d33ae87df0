package export

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// TestEncodeIsCanonical: keys sorted at every level, times in UTC at
// microsecond precision, whatever the input's order and zone.
func TestEncodeIsCanonical(t *testing.T) {
	at := time.Date(2025, 3, 4, 5, 6, 7, 891234567, time.FixedZone("x", 3600))
	th := core.Thread{ID: "t", ResourceID: "r", CreatedAt: at, UpdatedAt: at, Metadata: map[string]any{"z": 1, "a": map[string]any{"y": true, "b": "x"}}}
	line, err := Encode(Record{Kind: KindThread, Thread: &th})
	if err != nil {
		t.Fatal(err)
	}
	s := string(line)
	if !strings.Contains(s, `"createdAt":"2025-03-04T04:06:07.891234Z"`) {
		t.Fatalf("time not UTC at microseconds: %s", s)
	}
	if !strings.Contains(s, `"metadata":{"a":{"b":"x","y":true},"z":1}`) {
		t.Fatalf("keys not sorted: %s", s)
	}
	if !strings.HasPrefix(s, `{"kind":"thread","thread":{`) {
		t.Fatalf("record keys not sorted: %s", s)
	}
	again, err := CanonicalJSON(line)
	if err != nil || !bytes.Equal(again, line) {
		t.Fatalf("a canonical line changes when made canonical again: %s, %v", again, err)
	}
}

// TestWrite writes a thread with messages and working memory: the header,
// the resource, the thread, its messages oldest first and its working
// memory, in that order; a thread selects only its own lines.
func TestWrite(t *testing.T) {
	ctx := context.Background()
	s := store.Check(memstore.New())
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, id := range []string{"t1", "t2"} {
		if _, err := s.SaveThread(ctx, core.Thread{ID: id, ResourceID: "r", CreatedAt: at, UpdatedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	var msgs []core.Message
	for i, text := range []string{"second", "first"} {
		m := core.NewMessage(core.RoleUser, text)
		m.ID, m.ThreadID, m.ResourceID, m.CreatedAt = "m"+text, "t1", "r", at.Add(time.Duration(1-i)*time.Second)
		msgs = append(msgs, m)
	}
	if _, err := s.SaveMessages(ctx, msgs); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutWorkingMemory(ctx, core.ScopeThread, "t1", "# notes", 0); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	n, err := Write(ctx, s, &out, "", "t1")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	for _, l := range lines {
		kinds = append(kinds, strings.SplitN(strings.TrimPrefix(l, `{"kind":"`), `"`, 2)[0])
	}
	want := []string{KindHeader, KindResource, KindThread, KindMessage, KindMessage, KindWorkingMemory}
	if n != len(lines) || strings.Join(kinds, " ") != strings.Join(want, " ") {
		t.Fatalf("%d lines, kinds %v, want %v:\n%s", n, kinds, want, out.String())
	}
	if !strings.Contains(lines[3], `"mfirst"`) || !strings.Contains(lines[4], `"msecond"`) {
		t.Fatalf("messages not oldest first:\n%s\n%s", lines[3], lines[4])
	}
	if strings.Contains(out.String(), `"t2"`) {
		t.Fatalf("a thread export holds another thread:\n%s", out.String())
	}
}
