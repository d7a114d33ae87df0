package core

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/agentmem/agentmem/core/internal/workingmem"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
)

// WorkingMemoryToolName is the name of the tool that updates working memory.
const WorkingMemoryToolName = "updateWorkingMemory"

// WorkingMemoryTemplate is the configured shape of working memory: the
// markdown template, or the JSON Schema in schema mode.
type WorkingMemoryTemplate struct {
	Format  string // "markdown" or "json"
	Content string // trimmed template, or the JSON Schema text
}

func errWMMissingResource() error {
	return &Error{Code: CodeMissingResourceID, Msg: "Memory error: Resource-scoped working memory is enabled but no resourceId was provided. " +
		"Either provide a resourceId or explicitly set workingMemory.scope to 'thread'."}
}

func errWMDisabled() error {
	return &Error{Code: CodeWorkingMemoryDisabled, Msg: ErrWorkingMemoryDisabled.Msg()}
}

func errWMThreadNotFound(id string) error {
	return memerr.Errorf(CodeThreadNotFound, "", "Thread %s not found", id)
}

// target returns the scope and key where the working memory of a thread lives.
func (wc *WorkingMemoryConfig) target(threadID, resourceID string) (Scope, string, error) {
	if wc.Scope == ScopeThread {
		if err := store.ValidateID("threadId", threadID); err != nil {
			return "", "", err
		}
		return ScopeThread, threadID, nil
	}
	if strings.TrimSpace(resourceID) == "" {
		return "", "", errWMMissingResource()
	}
	if err := store.ValidateID("resourceId", resourceID); err != nil {
		return "", "", err
	}
	return ScopeResource, resourceID, nil
}

// workingMemoryTurn returns the working-memory system message of a turn and,
// unless the turn is read-only, the updateWorkingMemory tool bound to the
// turn's thread and resource. A failed read does not fail the turn (as in
// Mastra): it is logged and returned as readErr, with no message and no tool
// (a model that cannot see the stored notes must not replace them).
func (m *Memory) workingMemoryTurn(ctx context.Context, st settings, th Thread) (msg string, tools []Tool, readErr error) {
	wc := st.wm
	s, err := m.checked()
	if err != nil {
		return "", nil, err
	}
	scope, id, err := wc.target(th.ID, th.ResourceID)
	if err != nil {
		return "", nil, err
	}
	cur, err := s.GetWorkingMemory(ctx, scope, id)
	if err != nil && !(errors.Is(err, ErrThreadNotFound) && scope == ScopeThread) {
		m.log.WarnContext(ctx, "agentmem: reading working memory failed; the turn goes on without it", "scope", scope, "id", id, "err", err)
		return "", nil, err
	}
	if st.readOnly {
		return workingmem.RenderReadOnly(wc.schema, cur.Data), nil, nil
	}
	tools = []Tool{m.workingMemoryTool(*wc, scope, id, th)}
	if wc.Version == WorkingMemoryVNext {
		return workingmem.RenderEdit(wc.Template, cur.Data, wc.Template != DefaultWorkingMemoryTemplate), tools, nil
	}
	return workingmem.Render(wc.schema, wc.Template, cur.Data), tools, nil
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
	s, scope, id, err := m.directTarget(ctx, op, threadID, resourceID, cfg)
	if errors.Is(err, ErrWorkingMemoryDisabled) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	wm, err := s.GetWorkingMemory(ctx, scope, id)
	if errors.Is(err, ErrThreadNotFound) && scope == ScopeThread {
		return "", errWMThreadNotFound(id)
	}
	if err != nil {
		return "", err
	}
	return wm.Data, nil
}

// UpdateWorkingMemory replaces the stored working memory of the thread (thread
// scope; the thread must exist) or of the resource (resource scope, which
// creates the resource). In schema mode non-empty data must be a JSON object
// that matches the schema. The write is a compare-and-set, retried on
// concurrent changes; a lost race surfaces as ErrConflict, never silently.
func (m *Memory) UpdateWorkingMemory(ctx context.Context, threadID, resourceID, data string, cfg *Config) (err error) {
	const op = "UpdateWorkingMemory"
	ctx, sp := m.startOp(ctx, op, threadID, resourceID, updateMemory)
	defer func() { err = sp.End(err) }()
	s, scope, id, err := m.directTarget(ctx, op, threadID, resourceID, cfg)
	if err != nil {
		return err
	}
	st, _ := m.settings(cfg) // validated by directTarget
	if err := checkWorkingMemoryData(op, st.wm, data); err != nil {
		return err
	}
	return m.replaceWorkingMemory(ctx, s, scope, id, data)
}

// checkWorkingMemoryData validates data replacing the working memory: in
// schema mode non-empty data must be a JSON object that matches the schema.
func checkWorkingMemoryData(op string, wc *WorkingMemoryConfig, data string) error {
	sch := wc.schema
	if sch == nil || strings.TrimSpace(data) == "" {
		return nil
	}
	v, err := workingmem.DecodeJSON(data)
	if err != nil {
		return &Error{Code: CodeInvalidArgument, Op: op, Msg: "working memory must be JSON in schema mode", Err: err}
	}
	if _, ok := v.(map[string]any); !ok {
		return memerr.Errorf(CodeInvalidArgument, op, "working memory must be a JSON object in schema mode")
	}
	if err := sch.Validate(v); err != nil {
		return &Error{Code: CodeInvalidArgument, Op: op, Msg: "working memory does not match the schema", Err: err}
	}
	return nil
}

// replaceWorkingMemory stores data as the working memory of id (compare-and-set,
// retried on concurrent changes).
func (m *Memory) replaceWorkingMemory(ctx context.Context, s *store.Checked, scope Scope, id, data string) error {
	_, err := m.casWorkingMemory(ctx, s, scope, id, nil, workingmem.Replace(data))
	if errors.Is(err, ErrThreadNotFound) && scope == ScopeThread {
		return errWMThreadNotFound(id)
	}
	return err
}

// GetWorkingMemoryTemplate returns the configured template (cfg overrides the
// instance config); false when working memory is disabled or the config is
// invalid.
func (m *Memory) GetWorkingMemoryTemplate(cfg *Config) (WorkingMemoryTemplate, bool) {
	st, err := m.settings(cfg)
	if err != nil || st.wm == nil {
		return WorkingMemoryTemplate{}, false
	}
	if st.wm.schema != nil {
		return WorkingMemoryTemplate{Format: "json", Content: strings.TrimSpace(string(st.wm.Schema))}, true
	}
	return WorkingMemoryTemplate{Format: "markdown", Content: strings.TrimSpace(st.wm.Template)}, true
}

// directTarget resolves config, store and target of a direct API call and
// checks thread ownership in thread scope.
func (m *Memory) directTarget(ctx context.Context, op, threadID, resourceID string, cfg *Config) (*store.Checked, Scope, string, error) {
	s, err := m.open(ctx, op)
	if err != nil {
		return nil, "", "", err
	}
	st, err := m.settings(cfg)
	if err != nil {
		return nil, "", "", err
	}
	if st.wm == nil {
		return nil, "", "", errWMDisabled()
	}
	scope, id, err := st.wm.target(threadID, resourceID)
	if err != nil {
		return nil, "", "", err
	}
	if scope == ScopeThread && resourceID != "" {
		_, err := m.ownedThread(ctx, s, op, threadID, resourceID)
		if errors.Is(err, ErrThreadNotFound) {
			return nil, "", "", errWMThreadNotFound(threadID)
		}
		if err != nil {
			return nil, "", "", err
		}
	}
	return s, scope, id, nil
}

// casWorkingMemory applies compute to the current data and stores the result
// with compare-and-set on the version. On a conflict it re-reads and
// re-applies compute, with jittered backoff, up to workingmem.MaxAttempts
// times; then it returns ErrConflict. onMissing, when set, is called once if the thread of
// a thread-scoped memory does not exist, and the update is retried.
func (m *Memory) casWorkingMemory(ctx context.Context, s *store.Checked, scope Scope, id string, onMissing func() error,
	compute workingmem.Update) (workingmem.Result, error) {
	var lastErr error
	for attempt := 0; attempt < workingmem.MaxAttempts; attempt++ {
		if attempt > 0 {
			if err := workingmem.Backoff(ctx, attempt); err != nil {
				return workingmem.Result{}, err
			}
		}
		cur, err := s.GetWorkingMemory(ctx, scope, id)
		if err == nil {
			next, write, res := compute(cur.Data)
			if !write || (next == cur.Data && cur.Version > 0) {
				return res, nil
			}
			if res, err := m.checkWorkingMemory(next); err != nil {
				return res, err
			}
			if _, err = s.PutWorkingMemory(ctx, scope, id, next, cur.Version); err == nil {
				return res, nil
			}
		}
		switch {
		case errors.Is(err, ErrConflict):
			lastErr = err
		case errors.Is(err, ErrThreadNotFound) && scope == ScopeThread && onMissing != nil:
			if err := onMissing(); err != nil {
				return workingmem.Result{}, err
			}
			onMissing = nil
			attempt-- // creating the thread is not a lost race
		default:
			return workingmem.Result{}, err
		}
	}
	return workingmem.Result{}, &Error{Code: CodeConflict, Op: "updateWorkingMemory",
		Msg: "working memory kept changing concurrently; the update was not applied", Err: lastErr}
}

// workingMemoryTool builds the updateWorkingMemory tool bound to one target.
// Call is safe for concurrent use.
func (m *Memory) workingMemoryTool(wc WorkingMemoryConfig, scope Scope, id string, th Thread) Tool {
	t := Tool{
		Name:        WorkingMemoryToolName,
		Description: workingmem.ToolDescription(wc.schema) + m.workingMemoryLimitNote(),
		Parameters:  workingmem.ToolParams(wc.schema),
	}
	parse := func(args json.RawMessage) (workingmem.Update, workingmem.Result) {
		return workingmem.ParseUpdate(wc.schema, wc.Template, args)
	}
	if wc.Version == WorkingMemoryVNext {
		t.Description = workingmem.EditToolDescription() + m.workingMemoryLimitNote()
		t.Parameters = workingmem.EditToolParams()
		parse = func(args json.RawMessage) (workingmem.Update, workingmem.Result) {
			return workingmem.ParseEdit(wc.Template, scope == ScopeResource, args)
		}
	}
	// ensureThread recreates the turn's thread if it vanished (thread scope).
	ensureThread := func(ctx context.Context, s *store.Checked) error {
		if _, err := s.GetThread(ctx, th.ID); err == nil || !errors.Is(err, ErrThreadNotFound) {
			return err
		}
		now := m.stamp()
		_, err := s.SaveThread(ctx, Thread{ID: th.ID, ResourceID: th.ResourceID, CreatedAt: now, UpdatedAt: now})
		return err
	}
	t.Call = func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		s, err := m.open(ctx, WorkingMemoryToolName)
		if err != nil {
			return nil, err
		}
		compute, res := parse(args)
		if compute == nil {
			return res.JSON(), nil
		}
		var missing func() error
		if scope == ScopeThread {
			missing = func() error { return ensureThread(ctx, s) }
		}
		res, err = m.casWorkingMemory(ctx, s, scope, id, missing, compute)
		if errors.Is(err, ErrTooLarge) {
			return res.JSON(), nil // the model reads the limit and can retry shorter
		}
		if err != nil {
			return nil, err
		}
		return res.JSON(), nil
	}
	return t
}
