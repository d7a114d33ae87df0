package core

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
	"strings"

	"github.com/agentmem/agentmem/core/internal/workingmem"
)

// WorkingMemoryToolName is the name of the tool that updates working memory.
const WorkingMemoryToolName = "updateWorkingMemory"

// WorkingMemoryTemplate is the configured shape of working memory: the
// markdown template, or the JSON Schema in schema mode.
type WorkingMemoryTemplate struct {
	Format  string // "markdown" or "json"
	Content string // trimmed template, or the JSON Schema text
}

// settings is the view of the resolved w that working memory works with.
func (w *WorkingMemoryConfig) settings() workingmem.Settings {
	return workingmem.Settings{Scope: w.Scope, Template: w.Template, CustomTemplate: w.Template != DefaultWorkingMemoryTemplate,
		Schema: w.schema, VNext: w.Version == WorkingMemoryVNext}
}

// workingMemoryTool is the updateWorkingMemory tool of t, bound to one
// working memory. Like every entry point, it refuses a nil or ended
// context before anything runs.
func (m *Memory) workingMemoryTool(t workingmem.Tool) Tool {
	return Tool{Name: WorkingMemoryToolName, Description: t.Description, Parameters: t.Parameters,
		Call: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			if _, err := m.entry.open(ctx, WorkingMemoryToolName); err != nil {
				return nil, err
			}
			return t.Call(ctx, args)
		}}
}

// WorkingMemoryErr reports a working-memory read failure of this turn (the
// turn went on without the working-memory message and tool); nil when the
// read worked or working memory is off.
func (t *Turn) WorkingMemoryErr() error {
	if t == nil {
		return nil
	}
	return t.memoryErr
}

// GetWorkingMemory returns the stored working memory of the thread (thread
// scope) or of the resource (resource scope, the default); "" when nothing is
// stored. With working memory disabled it returns "", nil, as Mastra returns
// null (GetWorkingMemoryTemplate tells disabled from empty). cfg overrides the
// instance config.
func (m *Memory) GetWorkingMemory(ctx context.Context, threadID, resourceID string, cfg *Config) (string, error) {
	const op = "GetWorkingMemory"
	_, scope, id, err := m.directTarget(ctx, op, threadID, resourceID, cfg)
	if errors.Is(err, memerr.ErrWorkingMemoryDisabled) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return m.workingMemory.Get(ctx, scope, id)
}

// UpdateWorkingMemory replaces the stored working memory of the thread (thread
// scope; the thread must exist) or of the resource (resource scope, which
// creates the resource). In schema mode non-empty data must be a JSON object
// that matches the schema. The write is a compare-and-set, retried on
// concurrent changes; a lost race surfaces as ErrConflict, never silently.
func (m *Memory) UpdateWorkingMemory(ctx context.Context, threadID, resourceID, data string, cfg *Config) (err error) {
	const op = "UpdateWorkingMemory"
	ctx, sp := m.spans.startOp(ctx, op, threadID, resourceID, updateMemory)
	defer func() { err = sp.End(err) }()
	set, scope, id, err := m.directTarget(ctx, op, threadID, resourceID, cfg)
	if err != nil {
		return err
	}
	if err := set.CheckData(op, data); err != nil {
		return err
	}
	return m.workingMemory.Replace(ctx, scope, id, data)
}

// GetWorkingMemoryTemplate returns the configured template (cfg overrides the
// instance config); false when working memory is disabled or the config is
// invalid.
func (m *Memory) GetWorkingMemoryTemplate(cfg *Config) (WorkingMemoryTemplate, bool) {
	st, err := m.conf.settings(cfg)
	if err != nil || st.wm == nil {
		return WorkingMemoryTemplate{}, false
	}
	if st.wm.schema != nil {
		return WorkingMemoryTemplate{Format: "json", Content: strings.TrimSpace(string(st.wm.Schema))}, true
	}
	return WorkingMemoryTemplate{Format: "markdown", Content: strings.TrimSpace(st.wm.Template)}, true
}

// directTarget resolves the config and target of a direct API call and
// checks thread ownership in thread scope.
func (m *Memory) directTarget(ctx context.Context, op, threadID, resourceID string, cfg *Config) (workingmem.Settings, store.Scope, string, error) {
	s, err := m.entry.open(ctx, op)
	if err != nil {
		return workingmem.Settings{}, "", "", err
	}
	st, err := m.conf.settings(cfg)
	if err != nil {
		return workingmem.Settings{}, "", "", err
	}
	if st.wm == nil {
		return workingmem.Settings{}, "", "", &memerr.Error{Code: memerr.CodeWorkingMemoryDisabled, Msg: memerr.ErrWorkingMemoryDisabled.Msg()}
	}
	set := st.wm.settings()
	scope, id, err := set.Target(threadID, resourceID)
	if err != nil {
		return workingmem.Settings{}, "", "", err
	}
	if scope == store.ScopeThread && resourceID != "" {
		_, err := s.OwnedThread(ctx, op, threadID, resourceID)
		if errors.Is(err, memerr.ErrThreadNotFound) {
			return workingmem.Settings{}, "", "", workingmem.ThreadNotFound(threadID)
		}
		if err != nil {
			return workingmem.Settings{}, "", "", err
		}
	}
	return set, scope, id, nil
}
