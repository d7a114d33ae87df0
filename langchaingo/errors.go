package langchaingo

import (
	"errors"
	"fmt"
	"github.com/agentmem/agentmem/core/memerr"
)

// Misconfigurations the constructors cannot report (they return no error).
// The first call of the buffer or history fails with a *core.Error of code
// core.CodeInvalidConfig wrapping one of these; test with errors.Is.
var (
	// ErrNilMemory: WithMemory(nil) or WithHistoryMemory(nil). Upstream has
	// no such option; a nil Memory is never replaced by an in-process one,
	// since the caller asked for persistence.
	ErrNilMemory = errors.New("langchaingo memory: WithMemory(nil) / WithHistoryMemory(nil): no *core.Memory given; " +
		"pass one (e.g. core.New over core/store/sqlite), or drop the option to keep the conversation in process")
	// ErrConflictingOptions: WithChatHistory together with WithMemory.
	ErrConflictingOptions = errors.New("langchaingo memory: WithChatHistory and WithMemory both given, so it is unclear " +
		"where the conversation lives; give the memory to the history (NewChatMessageHistory(WithHistoryMemory(mem))) " +
		"and pass only WithChatHistory, or drop WithChatHistory")
)

// configError wraps a misconfiguration for the call op.
func configError(op string, err error) error {
	return &memerr.Error{Code: memerr.CodeInvalidConfig, Op: op, Msg: "misconfigured", Err: err}
}

// checkConfig reports a misconfiguration of the buffer's options.
func (x *bufferState) checkConfig(op string) error {
	switch {
	case x == nil:
		return nil
	case x.memSet && x.mem == nil:
		return configError(op, ErrNilMemory)
	case x.memSet && x.historySet:
		return configError(op, ErrConflictingOptions)
	}
	return nil
}

// explainDefaultResource adds to a resource-mismatch error that the resource
// was DefaultResourceID because none was given, and how to give one.
func explainDefaultResource(err error, resourceID string, defaulted bool) error {
	if err == nil || !defaulted || !errors.Is(err, memerr.ErrResourceMismatch) {
		return err
	}
	return fmt.Errorf("%w (the resource is %q, langchaingo.DefaultResourceID, because none was given: "+
		"name it with WithThread(threadID, resourceID), WithHistoryThread, WithThreadFromInput or ContextWithThread)", err, resourceID)
}
