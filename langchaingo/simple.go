package langchaingo

import (
	"github.com/tmc/langchaingo/memory"
)

// Simple is a memory that remembers nothing, langchaingo's memory.Simple
// (the default memory of chains.NewLLMChain and agents.NewExecutor). It is
// the upstream type itself, so values of either package are interchangeable.
type Simple = memory.Simple

// NewSimple returns a Simple memory.
func NewSimple() Simple { return memory.NewSimple() }

// GetInputValue returns the value under inputKey, or the only value when
// inputKey is empty, as a string; errors wrap ErrInvalidInputValues. It is
// langchaingo's memory.GetInputValue, which the buffers use to pick the
// saved input and output.
func GetInputValue(inputValues map[string]any, inputKey string) (string, error) {
	return memory.GetInputValue(inputValues, inputKey)
}
