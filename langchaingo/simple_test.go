package langchaingo

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/memory"
	"github.com/tmc/langchaingo/prompts"
	"github.com/tmc/langchaingo/schema"
)

func TestGetInputValue(t *testing.T) {
	t.Parallel()
	v, err := GetInputValue(map[string]any{"input": "hi"}, "")
	require.NoError(t, err)
	assert.Equal(t, "hi", v)
	v, err = GetInputValue(map[string]any{"input": "hi", "other": "x"}, "input")
	require.NoError(t, err)
	assert.Equal(t, "hi", v)
	for _, tc := range []struct {
		in  map[string]any
		key string
	}{
		{map[string]any{"a": "1", "b": "2"}, ""}, // multiple keys and no input key set
		{map[string]any{"a": "1"}, "b"},          // key missing
		{map[string]any{"a": 1}, "a"},            // not a string
		{map[string]any{}, ""},                   // nothing
	} {
		_, err := GetInputValue(tc.in, tc.key)
		assert.ErrorIs(t, err, ErrInvalidInputValues, "%v %q", tc.in, tc.key)
		_, upErr := memory.GetInputValue(tc.in, tc.key)
		assert.Equal(t, upErr.Error(), err.Error(), "same error as upstream")
	}
}

// Simple remembers nothing and is what upstream's chains default to; an
// LLMChain built with it runs like one built with upstream's.
func TestSimple(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var m schema.Memory = NewSimple()
	assert.Equal(t, memory.NewSimple(), m)
	require.NoError(t, m.SaveContext(ctx, map[string]any{"input": "a"}, map[string]any{"text": "b"}))
	vars, err := m.LoadMemoryVariables(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, vars)
	assert.Nil(t, m.MemoryVariables(ctx))
	assert.Equal(t, "", m.GetMemoryKey(ctx))
	require.NoError(t, m.Clear(ctx))

	llm := scripted("ok")
	chain := chains.NewLLMChain(llm, prompts.NewPromptTemplate("{{.input}}", []string{"input"}))
	chain.Memory = NewSimple()
	out, err := chains.Run(ctx, chain, "hello")
	require.NoError(t, err)
	assert.Equal(t, "ok", out)
	assert.Equal(t, []string{"hello"}, llm.prompts())
}
