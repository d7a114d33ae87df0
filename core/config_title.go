package core

// TitleConfig configures automatic thread titles.
type TitleConfig struct {
	Disabled     bool
	Model        Model  // default Options.Model
	Instructions string // default: built-in title instructions
	MinMessages  int    // default 1
	// OnTitle, when set, receives every generated title (the page's emitEvent).
	OnTitle func(threadID, title string)
	// Background generates the title after Commit returns, so the model call
	// does not delay the turn; Memory.Close waits for it. Default: inside
	// Commit (deterministic).
	Background bool
}

// resolveTitle validates and defaults title generation; nil when off.
func resolveTitle(t *TitleConfig) (*TitleConfig, error) {
	if t == nil || t.Disabled {
		return nil, nil
	}
	tc := *t
	if tc.MinMessages < 0 {
		return nil, invalidConfig("generateTitle.minMessages must be non-negative")
	}
	orDefault(&tc.MinMessages, 1)
	return &tc, nil
}

// mergeTitle overlays the set fields of over on base (both owned by the
// caller); over's Disabled always applies.
func mergeTitle(base, over *TitleConfig) *TitleConfig {
	if base == nil || over == nil {
		return pick(base, over)
	}
	base.Disabled = over.Disabled
	setIf(&base.Model, over.Model)
	setIf(&base.Instructions, over.Instructions)
	setIf(&base.MinMessages, over.MinMessages)
	if over.OnTitle != nil {
		base.OnTitle = over.OnTitle
	}
	base.Background = base.Background || over.Background
	return base
}
