package langchaingo

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/schema"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
)

// Misconfigurations the constructors cannot report fail every call with a
// typed error and store nothing.
func TestMisconfigurationFailsLoudly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	mem := newMem(t, core.Config{})
	in, out := map[string]any{"input": "hi"}, map[string]any{"text": "hello"}
	for name, tc := range map[string]struct {
		mem  schema.Memory
		want error
	}{
		"WithMemory(nil)":                {NewConversationBuffer(WithMemory(nil)), ErrNilMemory},
		"window WithMemory(nil)":         {NewConversationWindowBuffer(2, WithMemory(nil)), ErrNilMemory},
		"token WithMemory(nil)":          {NewConversationTokenBuffer(nil, 100, WithMemory(nil)), ErrNilMemory},
		"WithChatHistory+WithMemory":     {NewConversationBuffer(WithChatHistory(NewChatMessageHistory()), WithMemory(mem)), ErrConflictingOptions},
		"WithMemory+WithChatHistory":     {NewConversationBuffer(WithMemory(mem), WithChatHistory(NewChatMessageHistory())), ErrConflictingOptions},
		"history WithHistoryMemory(nil)": {NewConversationBuffer(WithChatHistory(NewChatMessageHistory(WithHistoryMemory(nil)))), ErrNilMemory},
	} {
		_, err := tc.mem.LoadMemoryVariables(ctx, in)
		assertConfigErr(t, name+" load", err, tc.want)
		assertConfigErr(t, name+" save", tc.mem.SaveContext(ctx, in, out), tc.want)
		assertConfigErr(t, name+" clear", tc.mem.Clear(ctx), tc.want)
	}
	threads, err := mem.ListThreads(ctx, store.ThreadQuery{})
	require.NoError(t, err)
	assert.Empty(t, threads.Threads, "nothing was stored in the memory given with WithChatHistory")

	h := NewChatMessageHistory(WithHistoryMemory(nil))
	assertConfigErr(t, "history add", h.AddUserMessage(ctx, "x"), ErrNilMemory)
	_, err = h.Messages(ctx)
	assertConfigErr(t, "history messages", err, ErrNilMemory)
}

func assertConfigErr(t *testing.T, what string, err, want error) {
	t.Helper()
	assert.ErrorIs(t, err, want, what)
	assert.ErrorIs(t, err, core.ErrInvalidConfig, what)
	var ce *core.Error
	if assert.True(t, errors.As(err, &ce), what) {
		assert.Equal(t, core.CodeInvalidConfig, ce.Code, what)
	}
}

// A thread of another resource, reached with the default resource, fails
// with an error that says where "default" came from and how to set it.
func TestDefaultResourceExplained(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	mem := newMem(t, core.Config{})
	_, err := mem.CreateThread(ctx, core.ThreadInput{ID: "t1", ResourceID: "alice"})
	require.NoError(t, err)

	b := NewConversationBuffer(WithMemory(mem), WithThread("t1", ""))
	_, err = b.LoadMemoryVariables(ctx, map[string]any{"input": "hi"})
	assert.ErrorIs(t, err, core.ErrResourceMismatch)
	assert.ErrorContains(t, err, `the resource is "default", langchaingo.DefaultResourceID, because none was given`)
	assert.ErrorContains(t, err, "WithThread(threadID, resourceID)")

	// A resource the caller named is not explained as a default.
	b = NewConversationBuffer(WithMemory(mem), WithThread("t1", "bob"))
	_, err = b.LoadMemoryVariables(ctx, map[string]any{"input": "hi"})
	assert.ErrorIs(t, err, core.ErrResourceMismatch)
	assert.NotContains(t, err.Error(), "DefaultResourceID")
}
