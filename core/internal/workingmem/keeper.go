package workingmem

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
)

// Store is the part of a store working memory reads and writes; the
// thread calls recreate a thread-scoped memory's vanished thread.
// *store.Checked is one.
type Store interface {
	GetWorkingMemory(ctx context.Context, scope store.Scope, id string) (store.WorkingMemory, error)
	PutWorkingMemory(ctx context.Context, scope store.Scope, id, data string, expectVersion int64) (store.WorkingMemory, error)
	GetThread(ctx context.Context, id string) (store.Thread, error)
	SaveThread(ctx context.Context, t store.Thread) (store.Thread, error)
}

// Clock stamps the times of a thread the tool recreates, in the order of
// the memory's other writes.
type Clock interface {
	Stamp() time.Time
}

// Settings are a resolved working-memory configuration.
type Settings struct {
	Scope    store.Scope
	Template string
	// CustomTemplate: Template is not the default one.
	CustomTemplate bool
	Schema         *Schema // nil: Markdown
	VNext          bool    // the vnext edit tool instead of replace
}

// Target returns the scope and key where the working memory of a thread
// lives.
func (s Settings) Target(threadID, resourceID string) (store.Scope, string, error) {
	if s.Scope == store.ScopeThread {
		if err := store.ValidateID("threadId", threadID); err != nil {
			return "", "", err
		}
		return store.ScopeThread, threadID, nil
	}
	if strings.TrimSpace(resourceID) == "" {
		return "", "", &memerr.Error{Code: memerr.CodeMissingResourceID, Msg: "Memory error: Resource-scoped working memory is enabled but no resourceId was provided. " +
			"Either provide a resourceId or explicitly set workingMemory.scope to 'thread'."}
	}
	if err := store.ValidateID("resourceId", resourceID); err != nil {
		return "", "", err
	}
	return store.ScopeResource, resourceID, nil
}

// CheckData validates data replacing the working memory: in schema mode
// non-empty data must be a JSON object that matches the schema.
func (s Settings) CheckData(op, data string) error {
	if s.Schema == nil || strings.TrimSpace(data) == "" {
		return nil
	}
	v, err := DecodeJSON(data)
	if err != nil {
		return &memerr.Error{Code: memerr.CodeInvalidArgument, Op: op, Msg: "working memory must be JSON in schema mode", Err: err}
	}
	if _, ok := v.(map[string]any); !ok {
		return memerr.Errorf(memerr.CodeInvalidArgument, op, "working memory must be a JSON object in schema mode")
	}
	if err := s.Schema.Validate(v); err != nil {
		return &memerr.Error{Code: memerr.CodeInvalidArgument, Op: op, Msg: "working memory does not match the schema", Err: err}
	}
	return nil
}

// Keeper is working memory: it shows a turn the stored notes, gives the
// model the update tool, and stores updates by compare-and-set under the
// size limit.
type Keeper struct {
	store    Store
	maxBytes int
	log      *slog.Logger
	clock    Clock
}

// New returns a Keeper over s that refuses memory over maxBytes.
func New(s Store, maxBytes int, log *slog.Logger, clock Clock) *Keeper {
	return &Keeper{store: s, maxBytes: maxBytes, log: log, clock: clock}
}

// Tool is the update tool of one working memory.
type Tool struct {
	Description string
	Parameters  json.RawMessage
	Call        func(ctx context.Context, args json.RawMessage) (json.RawMessage, error)
}

// Turn returns the working-memory system message of a turn on th and,
// unless the turn is read-only, the update tool bound to its working
// memory. A failed read does not fail the turn (as in Mastra): it is
// logged and returned as readErr, with no message and no tool (a model
// that cannot see the stored notes must not replace them).
func (k *Keeper) Turn(ctx context.Context, set Settings, th store.Thread, readOnly bool) (msg string, tool *Tool, readErr error) {
	scope, id, err := set.Target(th.ID, th.ResourceID)
	if err != nil {
		return "", nil, err
	}
	cur, err := k.store.GetWorkingMemory(ctx, scope, id)
	if err != nil && !(errors.Is(err, memerr.ErrThreadNotFound) && scope == store.ScopeThread) {
		k.log.WarnContext(ctx, "agentmem: reading working memory failed; the turn goes on without it", "scope", scope, "id", id, "err", err)
		return "", nil, err
	}
	if readOnly {
		return RenderReadOnly(set.Schema, cur.Data), nil, nil
	}
	t := k.Tool(set, scope, id, th)
	if set.VNext {
		return RenderEdit(set.Template, cur.Data, set.CustomTemplate), &t, nil
	}
	return Render(set.Schema, set.Template, cur.Data), &t, nil
}

// Get returns the stored working memory of id; "" when nothing is stored.
func (k *Keeper) Get(ctx context.Context, scope store.Scope, id string) (string, error) {
	wm, err := k.store.GetWorkingMemory(ctx, scope, id)
	if errors.Is(err, memerr.ErrThreadNotFound) && scope == store.ScopeThread {
		return "", ThreadNotFound(id)
	}
	if err != nil {
		return "", err
	}
	return wm.Data, nil
}

// Replace stores data as the working memory of id (compare-and-set,
// retried on concurrent changes).
func (k *Keeper) Replace(ctx context.Context, scope store.Scope, id, data string) error {
	_, err := k.cas(ctx, scope, id, nil, Replace(data))
	if errors.Is(err, memerr.ErrThreadNotFound) && scope == store.ScopeThread {
		return ThreadNotFound(id)
	}
	return err
}

// FromMetadata splits a string "workingMemory" key off thread metadata and
// validates it (schema and size) before anything is written; data is nil
// when there is none (meta is then returned as given).
func (k *Keeper) FromMetadata(op string, set Settings, meta map[string]any) (rest map[string]any, data *string, err error) {
	wm, ok := meta["workingMemory"].(string)
	if !ok {
		return meta, nil, nil
	}
	if err := set.CheckData(op, wm); err != nil {
		return nil, nil, err
	}
	if _, err := k.Check(wm); err != nil {
		return nil, nil, err
	}
	rest = make(map[string]any, len(meta))
	for key, v := range meta {
		if key != "workingMemory" {
			rest[key] = v
		}
	}
	return rest, &wm, nil
}

// Save stores data as the working memory of th in set's scope.
func (k *Keeper) Save(ctx context.Context, set Settings, th store.Thread, data string) error {
	scope, id, err := set.Target(th.ID, th.ResourceID)
	if err != nil {
		return err
	}
	return k.Replace(ctx, scope, id, data)
}

// ThreadNotFound is the error of a thread-scoped working memory whose
// thread is missing.
func ThreadNotFound(id string) error {
	return memerr.Errorf(memerr.CodeThreadNotFound, "", "Thread %s not found", id)
}

// Check refuses working memory over the size limit; the result tells the
// model the limit when the write came from the update tool.
func (k *Keeper) Check(data string) (Result, error) {
	if len(data) <= k.maxBytes {
		return Result{}, nil
	}
	msg := fmt.Sprintf("working memory would be %d bytes, the limit is %d; nothing was stored. Keep it shorter.", len(data), k.maxBytes)
	return Fail(msg), memerr.Errorf(memerr.CodeTooLarge, ToolName, "%s", msg)
}

// cas applies compute to the current data and stores the result with
// compare-and-set on the version. On a conflict it re-reads and re-applies
// compute, with jittered backoff, up to MaxAttempts times; then it returns
// ErrConflict. onMissing, when set, is called once if the thread of a
// thread-scoped memory does not exist, and the update is retried.
func (k *Keeper) cas(ctx context.Context, scope store.Scope, id string, onMissing func() error, compute Update) (Result, error) {
	var lastErr error
	for attempt := 0; attempt < MaxAttempts; attempt++ {
		if attempt > 0 {
			if err := Backoff(ctx, attempt); err != nil {
				return Result{}, err
			}
		}
		cur, err := k.store.GetWorkingMemory(ctx, scope, id)
		if err == nil {
			next, write, res := compute(cur.Data)
			if !write || (next == cur.Data && cur.Version > 0) {
				return res, nil
			}
			if res, err := k.Check(next); err != nil {
				return res, err
			}
			if _, err = k.store.PutWorkingMemory(ctx, scope, id, next, cur.Version); err == nil {
				return res, nil
			}
		}
		switch {
		case errors.Is(err, memerr.ErrConflict):
			lastErr = err
		case errors.Is(err, memerr.ErrThreadNotFound) && scope == store.ScopeThread && onMissing != nil:
			if err := onMissing(); err != nil {
				return Result{}, err
			}
			onMissing = nil
			attempt-- // creating the thread is not a lost race
		default:
			return Result{}, err
		}
	}
	return Result{}, &memerr.Error{Code: memerr.CodeConflict, Op: ToolName,
		Msg: "working memory kept changing concurrently; the update was not applied", Err: lastErr}
}

// Tool builds the update tool bound to the working memory of id, th's
// (the tool recreates th when it vanished, in thread scope). Call is safe
// for concurrent use.
func (k *Keeper) Tool(set Settings, scope store.Scope, id string, th store.Thread) Tool {
	limit := fmt.Sprintf(" The stored memory may be at most %d bytes.", k.maxBytes)
	t := Tool{Description: ToolDescription(set.Schema) + limit, Parameters: ToolParams(set.Schema)}
	parse := func(args json.RawMessage) (Update, Result) { return ParseUpdate(set.Schema, set.Template, args) }
	if set.VNext {
		t.Description, t.Parameters = EditToolDescription()+limit, EditToolParams()
		parse = func(args json.RawMessage) (Update, Result) {
			return ParseEdit(set.Template, scope == store.ScopeResource, args)
		}
	}
	// ensureThread recreates the turn's thread if it vanished (thread scope).
	ensureThread := func(ctx context.Context) error {
		if _, err := k.store.GetThread(ctx, th.ID); err == nil || !errors.Is(err, memerr.ErrThreadNotFound) {
			return err
		}
		now := k.clock.Stamp()
		_, err := k.store.SaveThread(ctx, store.Thread{ID: th.ID, ResourceID: th.ResourceID, CreatedAt: now, UpdatedAt: now})
		return err
	}
	t.Call = func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		compute, res := parse(args)
		if compute == nil {
			return res.JSON(), nil
		}
		var missing func() error
		if scope == store.ScopeThread {
			missing = func() error { return ensureThread(ctx) }
		}
		res, err := k.cas(ctx, scope, id, missing, compute)
		if errors.Is(err, memerr.ErrTooLarge) {
			return res.JSON(), nil // the model reads the limit and can retry shorter
		}
		if err != nil {
			return nil, err
		}
		return res.JSON(), nil
	}
	return t
}
