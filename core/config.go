package core

import "fmt"

// LastMessages is the count cap of remembered history. Its zero value means
// "unset": 10 messages, or no count cap when a MessageHistory token budget is set.
type LastMessages struct {
	n    int
	mode uint8
}

const (
	lmUnset uint8 = iota
	lmCount
	lmAll
	lmNone
)

// LastN caps history at the n most recent messages; LastN(0) disables history.
func LastN(n int) LastMessages { return LastMessages{n: n, mode: lmCount} }

// AllMessages loads every message (the page's Number.MAX_SAFE_INTEGER).
var AllMessages = LastMessages{mode: lmAll}

// NoHistory disables message history: nothing is loaded and nothing is saved
// (the page's lastMessages: false).
var NoHistory = LastMessages{mode: lmNone}

// IsSet reports whether the value was set explicitly.
func (l LastMessages) IsSet() bool { return l.mode != lmUnset }

func (l LastMessages) String() string {
	switch l.mode {
	case lmCount:
		return fmt.Sprint(l.n)
	case lmAll:
		return "all"
	case lmNone:
		return "none"
	}
	return "unset"
}

// MessageHistory is the token budget for the whole prompt.
type MessageHistory struct {
	// MaxTokens bounds the prompt; 0 disables message history.
	MaxTokens int
	// AtMaxRemoveTokens is how far below MaxTokens a trim goes; nil means 25%
	// of MaxTokens.
	AtMaxRemoveTokens *int
}

// MessageRange is how many neighbours of a semantic hit are recalled with it.
type MessageRange struct{ Before, After int }

// SemanticRecall configures vector recall of older messages. A nil
// *SemanticRecall leaves the setting unset; &SemanticRecall{} enables it
// with defaults; Disabled turns it off (e.g. per call).
type SemanticRecall struct {
	Disabled     bool
	TopK         int           // default 4
	MessageRange *MessageRange // default {1, 1}
	Scope        Scope         // default ScopeResource
	// MaxChunkChars splits longer message text into chunks, each embedded
	// separately with id "<messageID>#<n>"; default 16384.
	MaxChunkChars int
	// Threshold keeps only hits with score >= Threshold (0 keeps all).
	Threshold   float64
	IndexConfig IndexConfig
	// Hybrid blends keyword (BM25) and vector ranking where the store supports
	// it; Alpha 1 is pure vector, 0 pure keyword.
	Hybrid *Hybrid
}

// Hybrid configures hybrid (BM25 + vector) recall.
type Hybrid struct {
	// Alpha weighs the two rankings: 1 is pure vector, 0 pure keyword (BM25);
	// nil means DefaultHybridAlpha.
	Alpha *float64
}

// DefaultHybridAlpha is Weaviate's default hybrid weight. With the offline
// lexical embedder a low alpha (0.1–0.2) ranks best on LoCoMo; with a real
// embedding model the vector side earns more weight (see BENCHMARKS.md).
const DefaultHybridAlpha = 0.75

// Float returns a pointer to f, for Config fields.
func Float(f float64) *float64 { return &f }

// Config is the memory configuration: instance-wide in Options.Config and per
// call in TurnRequest.Config / RecallQuery.Config. In a merge, every field set
// in the override (non-nil pointer, explicit LastMessages) replaces the base.
type Config struct {
	LastMessages    LastMessages
	MessageHistory  *MessageHistory
	ReadOnly        *bool
	RetainFullInput *bool
	SemanticRecall  *SemanticRecall
	WorkingMemory   *WorkingMemoryConfig
	GenerateTitle   *TitleConfig
	// FilterIncompleteToolCalls drops tool calls still awaiting a result from
	// the prompt (default true); when false they get a pending placeholder.
	FilterIncompleteToolCalls *bool
	// ObservationalMemory replaces history loading and token trimming with
	// observations of the conversation; nil leaves it unset (off).
	ObservationalMemory *ObservationalMemoryConfig
}

// Bool returns a pointer to b, for Config fields.
func Bool(b bool) *bool { return &b }

// Int returns a pointer to n, for Config fields.
func Int(n int) *int { return &n }

// Merge returns c with every field set in over replacing c's. SemanticRecall
// merges field by field (a per-call TopK keeps the instance's Scope); the other
// struct fields replace as a whole.
func (c Config) Merge(over *Config) Config {
	if over == nil {
		return c
	}
	if over.LastMessages.IsSet() {
		c.LastMessages = over.LastMessages
	}
	if over.MessageHistory != nil {
		c.MessageHistory = over.MessageHistory
	}
	if over.ReadOnly != nil {
		c.ReadOnly = over.ReadOnly
	}
	if over.RetainFullInput != nil {
		c.RetainFullInput = over.RetainFullInput
	}
	if over.SemanticRecall != nil {
		c.SemanticRecall = mergeRecall(c.SemanticRecall, over.SemanticRecall)
	}
	if over.WorkingMemory != nil {
		c.WorkingMemory = over.WorkingMemory
	}
	if over.GenerateTitle != nil {
		c.GenerateTitle = over.GenerateTitle
	}
	if over.FilterIncompleteToolCalls != nil {
		c.FilterIncompleteToolCalls = over.FilterIncompleteToolCalls
	}
	if over.ObservationalMemory != nil {
		c.ObservationalMemory = over.ObservationalMemory
	}
	return c
}

// settings is a validated, defaulted Config.
type settings struct {
	historyEnabled   bool
	maxMessages      int // -1: no count cap
	maxTokens        int // 0: no token budget
	atMaxRemove      int
	readOnly         bool
	retainFullInput  bool
	filterIncomplete bool
	recall           *SemanticRecall // nil: off; else fully defaulted
	wm               *WorkingMemoryConfig
	title            *TitleConfig
	om               *omSettings // nil: observational memory off
}

const defaultLastMessages = 10

func (c Config) resolve() (settings, error) {
	s := settings{maxMessages: -1, filterIncomplete: true}
	bad := func(format string, a ...any) (settings, error) {
		return settings{}, &Error{Code: CodeInvalidConfig, Msg: fmt.Sprintf(format, a...)}
	}
	switch c.LastMessages.mode {
	case lmCount:
		if c.LastMessages.n < 0 {
			return bad("lastMessages must be a finite non-negative integer")
		}
		s.maxMessages = c.LastMessages.n
	case lmNone:
		s.maxMessages = 0
	case lmUnset:
		if c.MessageHistory == nil {
			s.maxMessages = defaultLastMessages
		}
	}
	s.historyEnabled = s.maxMessages != 0
	if h := c.MessageHistory; h != nil {
		if h.MaxTokens < 0 {
			return bad("messageHistory.maxTokens must be a finite non-negative number")
		}
		s.maxTokens = h.MaxTokens
		s.atMaxRemove = h.MaxTokens / 4
		if h.AtMaxRemoveTokens != nil {
			if *h.AtMaxRemoveTokens < 0 || *h.AtMaxRemoveTokens > h.MaxTokens {
				return bad("messageHistory.atMaxRemoveTokens must be a finite non-negative number no greater than maxTokens")
			}
			s.atMaxRemove = *h.AtMaxRemoveTokens
		}
		if h.MaxTokens == 0 {
			s.historyEnabled = false
		}
	}
	s.readOnly = c.ReadOnly != nil && *c.ReadOnly
	s.retainFullInput = c.RetainFullInput != nil && *c.RetainFullInput
	if c.FilterIncompleteToolCalls != nil {
		s.filterIncomplete = *c.FilterIncompleteToolCalls
	}
	if r := c.SemanticRecall; r != nil && !r.Disabled {
		rc := *r
		if rc.TopK < 0 || rc.MaxChunkChars < 0 || rc.Threshold < 0 {
			return bad("semanticRecall: topK, maxChunkChars and threshold must be non-negative")
		}
		if rc.TopK == 0 {
			rc.TopK = 4
		}
		if rc.MessageRange == nil {
			rc.MessageRange = &MessageRange{Before: 1, After: 1}
		} else if rc.MessageRange.Before < 0 || rc.MessageRange.After < 0 {
			return bad("semanticRecall.messageRange must be non-negative")
		}
		switch rc.Scope {
		case "":
			rc.Scope = ScopeResource
		case ScopeResource, ScopeThread:
		default:
			return bad("semanticRecall.scope must be thread or resource, got %q", rc.Scope)
		}
		if rc.MaxChunkChars == 0 {
			rc.MaxChunkChars = 16384
		}
		if h := rc.Hybrid; h != nil {
			alpha := DefaultHybridAlpha
			if h.Alpha != nil {
				alpha = *h.Alpha
			}
			if alpha < 0 || alpha > 1 {
				return bad("semanticRecall.hybrid.alpha must be within [0, 1]")
			}
			rc.Hybrid = &Hybrid{Alpha: &alpha}
		}
		s.recall = &rc
	}
	if w := c.WorkingMemory; w != nil && w.Enabled {
		wc, err := w.resolve()
		if err != nil {
			return settings{}, err
		}
		s.wm = &wc
	}
	if t := c.GenerateTitle; t != nil && !t.Disabled {
		tc := *t
		if tc.MinMessages < 0 {
			return bad("generateTitle.minMessages must be non-negative")
		}
		if tc.MinMessages == 0 {
			tc.MinMessages = 1
		}
		s.title = &tc
	}
	if o := c.ObservationalMemory; o != nil && !o.Disabled {
		om, err := o.resolve()
		if err != nil {
			return settings{}, err
		}
		s.om = om
	}
	return s, nil
}

// tokenBudget reports whether history is bounded by tokens.
func (s settings) tokenBudget() bool { return s.historyEnabled && s.maxTokens > 0 }

// mergeRecall overlays the non-zero fields of over on base.
func mergeRecall(base, over *SemanticRecall) *SemanticRecall {
	if base == nil {
		return over
	}
	out := *base
	out.Disabled = over.Disabled
	if over.TopK != 0 {
		out.TopK = over.TopK
	}
	if over.MessageRange != nil {
		out.MessageRange = over.MessageRange
	}
	if over.Scope != "" {
		out.Scope = over.Scope
	}
	if over.MaxChunkChars != 0 {
		out.MaxChunkChars = over.MaxChunkChars
	}
	if over.Threshold != 0 {
		out.Threshold = over.Threshold
	}
	if over.IndexConfig != (IndexConfig{}) {
		out.IndexConfig = over.IndexConfig
	}
	if over.Hybrid != nil {
		out.Hybrid = over.Hybrid
	}
	return &out
}
