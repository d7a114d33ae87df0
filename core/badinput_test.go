package core_test

import (
	"errors"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// Every public entry point answers zero values and garbage with a typed error
// (or a harmless no-op), never a panic.
func TestZeroValuesNeverPanic(t *testing.T) {
	m := newMem(t, memstore.New(), core.Config{WorkingMemory: &core.WorkingMemoryConfig{Enabled: true}})
	var typed *core.Error
	check := func(name string, err error) {
		t.Helper()
		if err != nil && !errors.As(err, &typed) {
			t.Fatalf("%s: untyped error %T: %v", name, err, err)
		}
	}
	_, err := m.Begin(ctx, core.TurnRequest{})
	if err == nil {
		t.Fatal("Begin with no ids succeeded")
	}
	check("Begin", err)
	_, err = m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{{}}})
	if err == nil {
		t.Fatal("Begin with an empty message succeeded")
	}
	check("Begin(empty message)", err)
	_, err = m.SaveMessages(ctx, nil, nil)
	check("SaveMessages(nil)", err)
	_, err = m.SaveMessages(ctx, []core.Message{{}}, nil)
	check("SaveMessages(zero)", err)
	_, err = m.Recall(ctx, core.RecallQuery{})
	check("Recall", err)
	_, err = m.UpdateMessages(ctx, []core.MessageUpdate{{}})
	check("UpdateMessages", err)
	check("DeleteMessages", m.DeleteMessages(ctx, nil))
	_, err = m.CreateThread(ctx, core.ThreadInput{})
	check("CreateThread", err)
	_, err = m.GetThread(ctx, "", "")
	check("GetThread", err)
	_, err = m.UpdateThread(ctx, "", core.ThreadUpdate{})
	check("UpdateThread", err)
	check("DeleteThread", m.DeleteThread(ctx, ""))
	_, _, err = m.CloneThread(ctx, core.CloneOptions{})
	check("CloneThread", err)
	_, err = m.GetWorkingMemory(ctx, "", "", nil)
	check("GetWorkingMemory", err)
	check("UpdateWorkingMemory", m.UpdateWorkingMemory(ctx, "", "", "", nil))
	tools, err := m.Tools(ctx, "t", "r", nil)
	check("Tools", err)
	for _, tool := range tools {
		for _, args := range []string{"", "null", "[]", `{"memory":5}`, `{"memory":null}`, "\xff"} {
			_, err := tool.Call(ctx, []byte(args))
			check("tool "+args, err)
		}
	}
	check("Reindex", m.Reindex(ctx, ""))
	_, err = m.ListThreads(ctx, core.ThreadQuery{PerPage: -9})
	check("ListThreads", err)
}
