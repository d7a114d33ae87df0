package core

import (
	"strconv"

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
func (r *rules) checkTitle(op, title string) error {
	if len(title) > r.opts.MaxTitleBytes {
		return memerr.Errorf(memerr.CodeTooLarge, op, "title is %d bytes, the limit is %d", len(title), r.opts.MaxTitleBytes)
	}
	return nil
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
