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

// callThread is the thread of one call; defaulted tells that its resource
// is DefaultResourceID because no option named one.
type callThread struct {
	threadID, resourceID string
	defaulted            bool
}

// resolveThread picks the thread of one call: the input keys of
// WithThreadFromInput, else the context (WithThreadFromContext), else
// WithThread, else the history's own thread.
func (x *bufferState) resolveThread(ctx context.Context, inputs map[string]any, h *ChatMessageHistory) (callThread, error) {
	ct := callThread{h.threadID, h.resourceID, !h.resourceSet}
	if x == nil {
		return ct, nil
	}
	if x.threadID != "" {
		ct = callThread{x.threadID, x.resourceID, !x.resourceSet}
	}
	fromCtx := false
	if x.fromCtx {
		if t, r, ok := ThreadFromContext(ctx); ok {
			ct.threadID, fromCtx = t, true
			if r != "" {
				ct.resourceID, ct.defaulted = r, false
			}
		}
	}
	if x.threadKey != "" && inputs != nil {
		v, err := inputString(inputs, x.threadKey, !fromCtx)
		if err != nil {
			return ct, err
		}
		if v != "" {
			ct.threadID = v
		}
	}
	if x.resourceKey != "" && inputs != nil {
		v, err := inputString(inputs, x.resourceKey, !fromCtx)
		if err != nil {
			return ct, err
		}
		if v != "" {
			ct.resourceID, ct.defaulted = v, false
		}
	}
	return ct, nil
}

// explain adds to err where a defaulted resource came from.
func (ct callThread) explain(err error) error {
	return explainDefaultResource(err, ct.resourceID, ct.defaulted)
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
