package core_test

import (
	"errors"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// Tools for a thread-scoped working memory does not let another resource
// write the working memory of a thread it does not own.
func TestToolsThreadScopeOwnership(t *testing.T) {
	m := newMem(t, memstore.New(), core.Config{WorkingMemory: &core.WorkingMemoryConfig{Enabled: true, Scope: core.ScopeThread}})
	if _, err := m.CreateThread(ctx, core.ThreadInput{ID: "t", ResourceID: "r1"}); err != nil {
		t.Fatal(err)
	}
	tools, err := m.Tools(ctx, "t", "r2", nil)
	if err == nil && len(tools) == 1 {
		_, err = tools[0].Call(ctx, []byte(`{"memory":"# hijacked"}`))
	}
	if !errors.Is(err, core.ErrResourceMismatch) {
		t.Fatalf("err = %v, want ErrResourceMismatch", err)
	}
	if wm, _ := m.GetWorkingMemory(ctx, "t", "r1", nil); wm != "" {
		t.Fatalf("working memory of r1's thread was written by r2: %q", wm)
	}
}
