package core

import (
	"fmt"
	"strconv"

	"github.com/agentmem/agentmem/core/internal/workingmem"
	"github.com/agentmem/agentmem/core/memerr"
)

// Defaults of the caps on stored text that every later prompt renders.
const (
	// DefaultMaxTitleBytes caps a thread title.
	DefaultMaxTitleBytes = 1 << 10
	// DefaultMaxWorkingMemoryBytes caps working memory: about 8k tokens,
	// which a prompt can carry every turn.
	DefaultMaxWorkingMemoryBytes = 32 << 10
)

// checkTitle refuses a title over Options.MaxTitleBytes.
func (m *Memory) checkTitle(op, title string) error {
	if len(title) > m.opts.MaxTitleBytes {
		return memerr.Errorf(CodeTooLarge, op, "title is %d bytes, the limit is %d", len(title), m.opts.MaxTitleBytes)
	}
	return nil
}

// checkWorkingMemory refuses working memory over
// Options.MaxWorkingMemoryBytes; the result tells the model the limit when
// the write came from the updateWorkingMemory tool.
func (m *Memory) checkWorkingMemory(data string) (workingmem.Result, error) {
	if len(data) <= m.opts.MaxWorkingMemoryBytes {
		return workingmem.Result{}, nil
	}
	msg := fmt.Sprintf("working memory would be %d bytes, the limit is %d; nothing was stored. Keep it shorter.", len(data), m.opts.MaxWorkingMemoryBytes)
	return workingmem.Fail(msg), memerr.Errorf(CodeTooLarge, "updateWorkingMemory", "%s", msg)
}

// workingMemoryLimitNote is appended to the tool's description so the model
// knows the cap.
func (m *Memory) workingMemoryLimitNote() string {
	return fmt.Sprintf(" The stored memory may be at most %d bytes.", m.opts.MaxWorkingMemoryBytes)
}

// fillLimits sets the default caps.
func (o *Options) fillLimits() {
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if o.MaxTitleBytes <= 0 {
		o.MaxTitleBytes = DefaultMaxTitleBytes
	}
	if o.MaxWorkingMemoryBytes <= 0 {
		o.MaxWorkingMemoryBytes = DefaultMaxWorkingMemoryBytes
	}
}

// groupDigits writes a size n >= 0 with its digits in groups of three
// ("4,194,304"), so that sizes near a limit can be compared at a glance.
func groupDigits(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
