package store

import "context"

// CallHook observes the driver calls Checked makes under a context: it is
// called before the driver runs, and the function it returns receives the
// classified error and returns it. Memory's telemetry uses it for the spans
// of store calls.
type CallHook func(ctx context.Context, op string) func(error) error

type callHookKey struct{}

// WithCallHook returns ctx carrying h for the Checked calls made under it.
func WithCallHook(ctx context.Context, h CallHook) context.Context {
	return context.WithValue(ctx, callHookKey{}, h)
}

// callHook starts the hook of ctx, if any, for op.
func callHook(ctx context.Context, op string) func(error) error {
	if h, ok := ctx.Value(callHookKey{}).(CallHook); ok {
		return h(ctx, op)
	}
	return noHook
}

func noHook(err error) error { return err }
