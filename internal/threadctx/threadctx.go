// Package threadctx carries the conversation thread of a call in a context,
// one key shared by the langchaingo and eino adapters, so a context made by
// either selects the thread for both.
package threadctx

import "context"

type key struct{}

type ref struct{ threadID, resourceID string }

// With returns a context selecting threadID of resourceID.
func With(ctx context.Context, threadID, resourceID string) context.Context {
	return context.WithValue(ctx, key{}, ref{threadID, resourceID})
}

// From returns the thread and resource of ctx; ok is false when ctx carries
// no thread or an empty thread id.
func From(ctx context.Context) (threadID, resourceID string, ok bool) {
	r, ok := ctx.Value(key{}).(ref)
	if !ok || r.threadID == "" {
		return "", "", false
	}
	return r.threadID, r.resourceID, true
}
