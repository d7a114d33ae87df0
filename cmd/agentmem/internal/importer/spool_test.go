package importer

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/export"
	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/message"
)

// TestSpoolReplaysRecords: what the checking pass spools comes back as the
// same records at the same positions, text-only messages (kept in binary)
// and every other record (kept as JSON) alike.
func TestSpoolReplaysRecords(t *testing.T) {
	at := time.Date(2025, 3, 1, 10, 3, 21, 123456789, time.UTC)
	text := core.Message{ID: "m1", Role: core.RoleUser, ThreadID: "t", ResourceID: "r", Type: "v2", CreatedAt: at,
		Content: core.Content{Format: 2, Parts: []core.Part{core.TextPart("héllo\n"), core.TextPart("")}}}
	tool := core.Message{ID: "m2", Role: core.RoleAssistant, ThreadID: "t", ResourceID: "r", CreatedAt: at,
		Content: core.Content{Format: 2, Parts: []core.Part{{Type: core.PartToolInvocation, ToolInvocation: &message.ToolInvocation{
			State: message.ToolStateResult, ToolCallID: "c", ToolName: "f", Args: json.RawMessage(`{"a":1}`), Result: json.RawMessage(`2`)}}},
			Metadata: map[string]any{"k": "v"}}}
	in := []export.Record{
		{Kind: export.KindThread, Thread: &core.Thread{ID: "t", ResourceID: "r", Title: "x", CreatedAt: at}},
		{Kind: export.KindMessage, Message: &text},
		{Kind: export.KindMessage, Message: &tool},
		{Kind: export.KindWorkingMemory, WorkingMemory: &export.WorkingMemoryDoc{ThreadID: "t", Data: "wm"}},
	}
	sp, err := NewSpool()
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	for i, r := range in {
		if err := sp.put(10*i+3, r); err != nil {
			t.Fatal(err)
		}
	}
	var got []export.Record
	var pos []int
	err = sp.Replay(&Source{Name: "x"}).Each(bg, func(n int, r export.Record) error {
		pos, got = append(pos, n), append(got, r)
		return nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(pos, []int{3, 13, 23, 33}) {
		t.Fatalf("positions %v", pos)
	}
	for i := range in {
		want, _ := json.Marshal(in[i])
		have, _ := json.Marshal(got[i])
		if string(want) != string(have) {
			t.Errorf("export.Record %d:\n got %s\nwant %s", i, have, want)
		}
	}
	if !reflect.DeepEqual(*got[1].Message, text) {
		t.Errorf("text-only message: got %#v, want %#v", *got[1].Message, text)
	}
}
