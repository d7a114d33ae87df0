package langchaingo

import (
	"context"
	"fmt"

	"github.com/tmc/langchaingo/memory"

	"github.com/agentmem/agentmem/internal/threadctx"
)

// ContextWithThread returns a context that selects the thread (and the
// resource owning it) for memories created with [WithThreadFromContext]. An
// empty resourceID keeps the memory's resource. The eino adapter's WithThread
// uses the same context key, so either one selects the thread for both.
func ContextWithThread(ctx context.Context, threadID, resourceID string) context.Context {
	return threadctx.With(ctx, threadID, resourceID)
}

// ThreadFromContext returns the thread and resource set by ContextWithThread.
func ThreadFromContext(ctx context.Context) (threadID, resourceID string, ok bool) {
	return threadctx.From(ctx)
}

// resolveThread picks the thread of one call: the input keys of
// WithThreadFromInput, else the context (WithThreadFromContext), else
// WithThread, else the history's own thread.
func (x *bufferState) resolveThread(ctx context.Context, inputs map[string]any, h *ChatMessageHistory) (string, string, error) {
	tid, rid := h.threadID, h.resourceID
	if x == nil {
		return tid, rid, nil
	}
	if x.threadID != "" {
		tid, rid = x.threadID, x.resourceID
	}
	fromCtx := false
	if x.fromCtx {
		if t, r, ok := ThreadFromContext(ctx); ok {
			tid, fromCtx = t, true
			if r != "" {
				rid = r
			}
		}
	}
	if x.threadKey != "" && inputs != nil {
		v, err := inputString(inputs, x.threadKey, !fromCtx)
		if err != nil {
			return "", "", err
		}
		if v != "" {
			tid = v
		}
	}
	if x.resourceKey != "" && inputs != nil {
		v, err := inputString(inputs, x.resourceKey, !fromCtx)
		if err != nil {
			return "", "", err
		}
		if v != "" {
			rid = v
		}
	}
	return tid, rid, nil
}

// inputString returns inputs[key] as a non-empty string; a missing key is an
// error only when required.
func inputString(inputs map[string]any, key string, required bool) (string, error) {
	v, ok := inputs[key]
	if !ok {
		if required {
			return "", fmt.Errorf("%w: %v do not contain thread key %s", memory.ErrInvalidInputValues, keysOf(inputs), key)
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok || s == "" {
		return "", fmt.Errorf("%w: thread key %s must be a non-empty string, got %v", memory.ErrInvalidInputValues, key, v)
	}
	return s, nil
}

func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// userInputs returns inputs without the thread keys of WithThreadFromInput,
// so GetInputValue still finds the single user input.
func (x *bufferState) userInputs(inputs map[string]any) map[string]any {
	if x == nil || (x.threadKey == "" && x.resourceKey == "") {
		return inputs
	}
	_, hasT := inputs[x.threadKey]
	_, hasR := inputs[x.resourceKey]
	if !hasT && !hasR {
		return inputs
	}
	out := make(map[string]any, len(inputs))
	for k, v := range inputs {
		if (x.threadKey != "" && k == x.threadKey) || (x.resourceKey != "" && k == x.resourceKey) {
			continue
		}
		out[k] = v
	}
	return out
}
