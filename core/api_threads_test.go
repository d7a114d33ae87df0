package core_test

import (
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// Mastra's Memory.saveThread / updateThread (packages/memory/src/index.ts,
// handleWorkingMemoryFromMetadata): a string metadata.workingMemory is
// written into working memory — the resource's in resource scope, the
// thread's in thread scope.
func TestSaveThreadAndUpdateThreadWriteWorkingMemoryFromMetadata(t *testing.T) {
	for _, scope := range []core.Scope{core.ScopeResource, core.ScopeThread} {
		t.Run(string(scope), func(t *testing.T) {
			m := newWM(t, memstore.New(), wmConfig(core.WorkingMemoryConfig{Scope: scope}))
			th, err := m.CreateThread(ctx, core.ThreadInput{ID: "t", ResourceID: "r",
				Metadata: map[string]any{"workingMemory": "# Notes\n- name: Ada", "k": "v"}})
			if err != nil {
				t.Fatal(err)
			}
			if th.Metadata["k"] != "v" {
				t.Fatalf("other metadata lost: %v", th.Metadata)
			}
			if wm, err := m.GetWorkingMemory(ctx, "t", "r", nil); err != nil || wm != "# Notes\n- name: Ada" {
				t.Fatalf("after create: %q, %v", wm, err)
			}
			if _, err := m.UpdateThread(ctx, "t", core.ThreadUpdate{Metadata: map[string]any{"workingMemory": "# Notes\n- name: Grace"}}); err != nil {
				t.Fatal(err)
			}
			if wm, err := m.GetWorkingMemory(ctx, "t", "r", nil); err != nil || wm != "# Notes\n- name: Grace" {
				t.Fatalf("after update: %q, %v", wm, err)
			}
			// The other scope is untouched.
			other := core.ScopeThread
			if scope == core.ScopeThread {
				other = core.ScopeResource
			}
			cfg := wmConfig(core.WorkingMemoryConfig{Scope: other})
			if wm, err := m.GetWorkingMemory(ctx, "t", "r", &cfg); err != nil || wm != "" {
				t.Fatalf("%s scope written too: %q, %v", other, wm, err)
			}
		})
	}
}
