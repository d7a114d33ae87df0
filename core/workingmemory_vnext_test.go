package core_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
)

const vnextTemplate = "# User\n- Name:\n- City:"

// vnextTool begins a turn and returns its update tool (vnext version).
func vnextTool(t *testing.T, m *core.Memory, thread, resource string) core.Tool {
	t.Helper()
	return updateTool(t, begin(t, m, thread, resource, "hi", nil))
}

// Mastra (vnext): newMemory alone starts the memory, then is appended on a
// new line; a searchString found is replaced (first occurrence only); one
// not found is appended instead, and the result says so.
func TestWorkingMemoryVNextAppendsAndReplacesSearchString(t *testing.T) {
	forEachStore(t, func(t *testing.T, s, _ store.Store) {
		m := newWM(t, s, wmConfig(core.WorkingMemoryConfig{Template: vnextTemplate, Version: core.WorkingMemoryVNext, Scope: core.ScopeThread}))
		tool := vnextTool(t, m, "t1", "R")
		steps := []struct{ args, want, msg string }{
			{`{"newMemory":"- Name: Alice"}`, "- Name: Alice", "started new working memory"},
			{`{"newMemory":"- City: Paris","updateReason":"append-new-memory"}`, "- Name: Alice\n- City: Paris", "appended newMemory to end of working memory"},
			// append ignores a searchString
			{`{"newMemory":"- Pet: Rex","searchString":"- Name: Alice"}`, "- Name: Alice\n- City: Paris\n- Pet: Rex", "appended"},
			{`{"newMemory":"- City: Lyon","searchString":"- City: Paris","updateReason":"clarify-existing-memory"}`,
				"- Name: Alice\n- City: Lyon\n- Pet: Rex", "found and replaced searchString with newMemory"},
			{`{"newMemory":"- Job: pilot","searchString":"- City: Rome","updateReason":"replace-irrelevant-memory"}`,
				"- Name: Alice\n- City: Lyon\n- Pet: Rex\n- Job: pilot", "doesn't exist. Appending"},
			// an empty newMemory with a searchString deletes the text
			{`{"newMemory":"","searchString":"\n- Pet: Rex","updateReason":"replace-irrelevant-memory"}`,
				"- Name: Alice\n- City: Lyon\n- Job: pilot", "found and replaced"},
		}
		for _, st := range steps {
			r := callTool(t, tool, st.args)
			if !r.Success || !strings.Contains(r.Message, st.msg) {
				t.Fatalf("%s: result %+v, want success with %q", st.args, r, st.msg)
			}
			if got := getWM(t, m, "t1", "R"); got != st.want {
				t.Fatalf("%s: memory %q, want %q", st.args, got, st.want)
			}
		}
	})
}

// Mastra (vnext): duplicates, the bare template and a non-append reason
// without searchString are rejected and change nothing.
func TestWorkingMemoryVNextRejectsDuplicatesAndTemplates(t *testing.T) {
	forEachStore(t, func(t *testing.T, s, _ store.Store) {
		m := newWM(t, s, wmConfig(core.WorkingMemoryConfig{Template: vnextTemplate, Version: core.WorkingMemoryVNext}))
		tool := vnextTool(t, m, "t1", "R")
		if r := callTool(t, tool, `{"newMemory":"# User\n  - Name:\n- City:  "}`); r.Success || !strings.Contains(r.Message, "equal to the working memory template") {
			t.Fatalf("template into an empty memory: %+v", r)
		}
		if got := getWM(t, m, "t1", "R"); got != "" {
			t.Fatalf("memory after a refused template = %q", got)
		}
		if r := callTool(t, tool, `{"newMemory":"- Name: Bob"}`); !r.Success {
			t.Fatal(r)
		}
		for _, args := range []string{
			`{"newMemory":"Name: Bob"}`, // already contained
			`{"newMemory":"` + strings.ReplaceAll(vnextTemplate, "\n", `\n`) + `"}`,
			`{"newMemory":"- Name: Carol","updateReason":"clarify-existing-memory"}`,
			`{"newMemory":"- Name: Carol","updateReason":"forget-everything","searchString":"- Name: Bob"}`,
			`{"newMemory":"- Name: Carol","searchString":"- Name: Bob","updateReason":"replace-irrelevant-memory"}`, // resource scope
			`{"newMemory":`,
		} {
			if r := callTool(t, tool, args); r.Success {
				t.Fatalf("%s: accepted %+v", args, r)
			}
			if got := getWM(t, m, "t1", "R"); got != "- Name: Bob" {
				t.Fatalf("%s: memory changed to %q", args, got)
			}
		}
		if r := callTool(t, tool, `{}`); !r.Success || getWM(t, m, "t1", "R") != "- Name: Bob" {
			t.Fatalf("empty arguments: %+v", r)
		}
	})
}

// Mastra (vnext): copies of the template the model sends along are removed
// from what is stored.
func TestWorkingMemoryVNextStripsTemplateCopies(t *testing.T) {
	forEachStore(t, func(t *testing.T, s, _ store.Store) {
		m := newWM(t, s, wmConfig(core.WorkingMemoryConfig{Template: vnextTemplate, Version: core.WorkingMemoryVNext}))
		tool := vnextTool(t, m, "t1", "R")
		args := `{"newMemory":` + mustJSON(vnextTemplate+"\n- Likes: tea") + `}`
		if r := callTool(t, tool, args); !r.Success {
			t.Fatal(r)
		}
		if got := getWM(t, m, "t1", "R"); got != "\n- Likes: tea" {
			t.Fatalf("memory = %q, want the template removed", got)
		}
	})
}

// The vnext tool and instructions: the tool takes newMemory, searchString
// and updateReason; the instructions ask for changes only; the stable
// version keeps the whole-memory tool.
func TestWorkingMemoryVNextToolAndInstructions(t *testing.T) {
	m := newWM(t, memstore.New(), wmConfig(core.WorkingMemoryConfig{Template: vnextTemplate, Version: core.WorkingMemoryVNext}))
	turn := begin(t, m, "t1", "R", "hi", nil)
	params := string(updateTool(t, turn).Parameters)
	for _, p := range []string{`"newMemory"`, `"searchString"`, `"updateReason"`, `"clarify-existing-memory"`} {
		if !strings.Contains(params, p) {
			t.Fatalf("vnext parameters %s lack %s", params, p)
		}
	}
	sys := wmSystem(t, turn)
	if !strings.Contains(sys, "searchString") || strings.Contains(sys, "always send the entire Markdown") ||
		!strings.Contains(sys, "Only store information that has a place in the template") {
		t.Fatalf("vnext instructions:\n%s", sys)
	}
	stable := newWM(t, memstore.New(), wmConfig(core.WorkingMemoryConfig{Template: vnextTemplate}))
	if p := string(updateTool(t, begin(t, stable, "t1", "R", "hi", nil)).Parameters); strings.Contains(p, "searchString") {
		t.Fatalf("stable parameters %s", p)
	}
	// A per-call override switches the version.
	cfg := core.Config{WorkingMemory: &core.WorkingMemoryConfig{Version: core.WorkingMemoryVNext}}
	if p := string(updateTool(t, begin(t, stable, "t1", "R", "hi", &cfg)).Parameters); !strings.Contains(p, "searchString") {
		t.Fatalf("override to vnext: parameters %s", p)
	}
}

// Bad versions are configuration errors: unknown names, and vnext with a
// schema (vnext edits Markdown text).
func TestWorkingMemoryVNextConfigErrors(t *testing.T) {
	for _, wc := range []core.WorkingMemoryConfig{
		{Version: "v2"},
		{Version: core.WorkingMemoryVNext, Schema: []byte(`{"type":"object","properties":{"name":{"type":"string"}}}`)},
	} {
		_, err := core.New(core.Options{Store: memstore.New(), Config: wmConfig(wc)})
		if !errors.Is(err, memerr.ErrInvalidConfig) {
			t.Fatalf("%+v: err = %v, want ErrInvalidConfig", wc, err)
		}
	}
	m := newWM(t, memstore.New(), wmConfig(core.WorkingMemoryConfig{}))
	bad := core.Config{WorkingMemory: &core.WorkingMemoryConfig{Version: "next"}}
	if _, err := m.Begin(context.Background(), core.TurnRequest{ThreadID: "t", ResourceID: "R", Config: &bad}); !errors.Is(err, memerr.ErrInvalidConfig) {
		t.Fatalf("bad override: %v", err)
	}
}
