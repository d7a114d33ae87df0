package eino_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/tool"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/vector/local"
	einomem "github.com/agentmem/agentmem/eino"
)

// The recall tool reaches an eino agent through Tools, from a turn and from
// Memory.Tools: its schema asks for a query, and a run returns the fenced
// messages of the thread's resource only.
func TestRecallToolThroughEino(t *testing.T) {
	m, err := core.New(core.Options{Store: memstore.New(), Vector: local.New(), Embedder: local.NewHashEmbedder(64),
		Config: core.Config{SemanticRecall: &core.SemanticRecall{Retrieval: &core.Retrieval{}}}})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)
	var msgs []core.Message
	for i, s := range []struct{ thread, res, text string }{
		{"t1", "u", "Our cat Miso is allergic to chicken."},
		{"t2", "u", "The printer on floor two is broken."},
		{"t3", "v", "Our cat Tofu is allergic to fish."},
	} {
		if _, err := m.CreateThread(ctx, core.ThreadInput{ID: s.thread, ResourceID: s.res}); err != nil {
			t.Fatal(err)
		}
		msg := core.NewMessage(core.RoleUser, s.text)
		msg.ThreadID, msg.ResourceID, msg.CreatedAt = s.thread, s.res, at.Add(time.Duration(i)*time.Hour)
		msgs = append(msgs, msg)
	}
	if _, err := m.SaveMessages(ctx, msgs, nil); err != nil {
		t.Fatal(err)
	}
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t2", ResourceID: "u", Input: []core.Message{core.NewMessage(core.RoleUser, "what can the cat not eat?")}})
	if err != nil {
		t.Fatal(err)
	}
	bound, err := m.Tools(ctx, "t2", "u", nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, ts := range map[string][]core.Tool{"turn": turn.Tools(), "memory": bound} {
		tools := einomem.Tools(ts)
		if len(tools) != 1 {
			t.Fatalf("%s: %d tools", name, len(tools))
		}
		info, err := tools[0].Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		js, err := info.ParamsOneOf.ToJSONSchema()
		if err != nil || info.Name != core.RecallToolName || js == nil || len(js.Required) != 1 || js.Required[0] != "query" {
			t.Fatalf("%s: info %+v, schema %+v, %v", name, info, js, err)
		}
		out, err := tools[0].(tool.InvokableTool).InvokableRun(ctx, `{"query":"cat allergic","threadId":"t1"}`)
		if err != nil {
			t.Fatal(err)
		}
		var res struct {
			Messages string `json:"messages"`
			Found    int    `json:"found"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%s: result %s: %v", name, out, err)
		}
		if res.Found != 1 || !strings.Contains(res.Messages, "[thread t1] [2024-03-01 10:00 UTC] User: Our cat Miso is allergic to chicken.") {
			t.Fatalf("%s: %s", name, out)
		}
		if strings.Contains(res.Messages, "Tofu") || strings.Contains(res.Messages, "printer") {
			t.Fatalf("%s: outside the asked thread or resource: %s", name, out)
		}
	}
}
