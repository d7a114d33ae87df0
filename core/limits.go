package core

// Defaults of the caps on stored text that every later prompt renders.
const (
	// DefaultMaxTitleBytes caps a thread title.
	DefaultMaxTitleBytes = 1 << 10
	// DefaultMaxWorkingMemoryBytes caps working memory: about 8k tokens,
	// which a prompt can carry every turn.
	DefaultMaxWorkingMemoryBytes = 32 << 10
)

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
