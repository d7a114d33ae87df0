package core

import (
	"encoding/json"
	"fmt"
	"github.com/agentmem/agentmem/core/store"

	"github.com/agentmem/agentmem/core/internal/indexing"
	"github.com/agentmem/agentmem/core/internal/observe"
	"github.com/agentmem/agentmem/core/internal/recall"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/vector"
)

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

// String returns the count, "all", "none" or "unset", for logs and errors.
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

// MessageRange is how many neighbours of a semantic hit are recalled with it;
// a neighbour that SemanticRecall.Filter excludes is left out.
type MessageRange struct{ Before, After int }

// SemanticRecall configures vector recall of older messages. A nil
// *SemanticRecall leaves the setting unset; &SemanticRecall{} enables it
// with defaults; Disabled turns it off (e.g. per call).
type SemanticRecall struct {
	Disabled     bool
	TopK         int           // default 4
	MessageRange *MessageRange // default {1, 1}
	Scope        store.Scope   // default ScopeResource
	// MaxChunkChars splits longer message text into chunks, each embedded
	// separately with id "<messageID>#<n>"; default 16384.
	MaxChunkChars int
	// Threshold keeps only hits with score >= Threshold (0 keeps all).
	Threshold   float64
	IndexConfig vector.IndexConfig
	// Hybrid blends keyword (BM25) and vector ranking where the store supports
	// it; Alpha 1 is pure vector, 0 pure keyword.
	Hybrid *Hybrid
	// Mode is the search: "" is SearchHybrid where the vector store supports
	// it (else SearchVector); SearchVector or SearchBM25 use one side only.
	Mode string
	// Language is the text analyzer's language (package
	// core/vector/analysis): "" is English, "none" only tokenizes and
	// lowercases. Instance-wide, like IndexText.
	Language string
	// IndexText configures what is indexed for a message; nil is the default.
	IndexText *IndexText
	// Filter (Mastra's semanticRecall.filter) keeps the semantic matches
	// whose message metadata matches it, AND-ed with the scope and with
	// what the caller asks (RecallQuery.Metadata and Range, the recall
	// tool's arguments), on every search: a turn's recall, Recall and the
	// recall tool. Build it with message.ParseFilter. A vector store that
	// cannot honour it fails the recall with ErrUnsupported, never recalls
	// unfiltered. Each hit is checked again on the stored message's
	// metadata, which holds also for messages indexed before their
	// metadata was stored with the vector (they carry none there until
	// ReindexResource).
	Filter message.Filter
	// Diversity re-ranks the hits for diversity (MMR); nil leaves it off.
	Diversity *Diversity
	// Retrieval offers the model the recall tool; nil leaves it off.
	Retrieval *Retrieval
}

// Hybrid configures hybrid (BM25 + vector) recall.
type Hybrid struct {
	// Alpha weighs the two rankings: 1 is pure vector, 0 pure keyword (BM25);
	// nil means DefaultHybridAlpha.
	Alpha *float64
}

// DefaultHybridAlpha is the default hybrid weight, chosen by
// cross-validation on LoCoMo (fit on one dev conversation, scored on the
// other, both ways: both folds picked 0.2; see BENCHMARKS.md). A real
// embedding model may earn the vector side more weight.
const DefaultHybridAlpha = 0.2

// Float returns a pointer to f, for Config fields.
func Float(f float64) *float64 { return &f }

// Config is the memory configuration: instance-wide in Options.Config and per
// call in TurnRequest.Config / RecallQuery.Config. New resolves and copies the
// instance config once; a per-call config is merged over it field by field
// (see Merge).
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

// Merge returns a deep copy of c with over merged in field by field, like
// Mastra's deep merge of a per-call config: every field that over sets
// replaces only that field of c, inside nested structs too. A field is set
// when it is a non-nil pointer or interface, a non-zero number, a non-empty
// string, an explicit LastMessages, or a true bool; so an override can turn a
// bool option on, and turns a feature off with its Disabled field (or
// NoHistory for message history). Pointers to small value groups
// (MessageRange, Hybrid) replace the group. A non-nil SemanticRecall, TitleConfig
// or ObservationalMemoryConfig override enables its feature unless it says
// Disabled; WorkingMemory is enabled by an override with Enabled and disabled
// by one with Disabled.
func (c Config) Merge(over *Config) Config {
	out := c.Clone()
	if over == nil {
		return out
	}
	o := over.Clone()
	if o.LastMessages.IsSet() {
		out.LastMessages = o.LastMessages
	}
	out.MessageHistory = mergeHistory(out.MessageHistory, o.MessageHistory)
	out.ReadOnly = pick(out.ReadOnly, o.ReadOnly)
	out.RetainFullInput = pick(out.RetainFullInput, o.RetainFullInput)
	out.FilterIncompleteToolCalls = pick(out.FilterIncompleteToolCalls, o.FilterIncompleteToolCalls)
	out.SemanticRecall = mergeRecall(out.SemanticRecall, o.SemanticRecall)
	out.WorkingMemory = mergeWorkingMemoryConfig(out.WorkingMemory, o.WorkingMemory)
	out.GenerateTitle = mergeTitle(out.GenerateTitle, o.GenerateTitle)
	out.ObservationalMemory = mergeObservational(out.ObservationalMemory, o.ObservationalMemory)
	return out
}

// Clone returns a deep copy of c. Models and callbacks are shared: they are
// behaviour, not settings.
func (c Config) Clone() Config {
	if h := c.MessageHistory; h != nil {
		c.MessageHistory = &MessageHistory{MaxTokens: h.MaxTokens, AtMaxRemoveTokens: clonePtr(h.AtMaxRemoveTokens)}
	}
	c.ReadOnly = clonePtr(c.ReadOnly)
	c.RetainFullInput = clonePtr(c.RetainFullInput)
	c.FilterIncompleteToolCalls = clonePtr(c.FilterIncompleteToolCalls)
	if r := c.SemanticRecall; r != nil {
		rc := *r
		rc.MessageRange = clonePtr(r.MessageRange)
		if r.IndexText != nil {
			it := *r.IndexText
			it.ContextMessages = clonePtr(it.ContextMessages)
			rc.IndexText = &it
		}
		if r.Hybrid != nil {
			rc.Hybrid = &Hybrid{Alpha: clonePtr(r.Hybrid.Alpha)}
		}
		cloneRecallExtras(&rc)
		c.SemanticRecall = &rc
	}
	if w := c.WorkingMemory; w != nil {
		wc := *w
		if w.Schema != nil {
			wc.Schema = append(json.RawMessage{}, w.Schema...)
		}
		c.WorkingMemory = &wc
	}
	c.GenerateTitle = clonePtr(c.GenerateTitle)
	c.ObservationalMemory = clonePtr(c.ObservationalMemory)
	return c
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// setIf sets *dst to v unless v is the zero value (an override left unset).
func setIf[T comparable](dst *T, v T) {
	var zero T
	if v != zero {
		*dst = v
	}
}

// orDefault sets *dst to def when it is the zero value (a setting left unset).
func orDefault[T comparable](dst *T, def T) {
	var zero T
	if *dst == zero {
		*dst = def
	}
}

// pick returns over when it is set, else base.
func pick[T any](base, over *T) *T {
	if over != nil {
		return over
	}
	return base
}

// mergeHistory overlays the set fields of over on base (both owned by the
// caller).
func mergeHistory(base, over *MessageHistory) *MessageHistory {
	if base == nil || over == nil {
		return pick(base, over)
	}
	setIf(&base.MaxTokens, over.MaxTokens)
	base.AtMaxRemoveTokens = pick(base.AtMaxRemoveTokens, over.AtMaxRemoveTokens)
	return base
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
	recall           *recall.Settings // nil: off; else fully defaulted
	wm               *WorkingMemoryConfig
	title            *TitleConfig
	observation      *observe.Settings // nil: observational memory off
	// bulk: a large load (SaveMessagesBulk), indexed through the
	// vector store's vector.BulkLoader when it has one.
	bulk bool
	// ownerGen is the recall engine's owner-change generation when the
	// settings were taken, before the operation saved anything (see
	// recall.Write).
	ownerGen int64
}

const defaultLastMessages = 10

func invalidConfig(format string, a ...any) error {
	return &memerr.Error{Code: memerr.CodeInvalidConfig, Msg: fmt.Sprintf(format, a...)}
}

// resolveScope defaults an empty scope to def and rejects unknown ones.
func resolveScope(option string, s, def store.Scope) (store.Scope, error) {
	switch s {
	case "":
		return def, nil
	case store.ScopeThread, store.ScopeResource:
		return s, nil
	}
	return "", invalidConfig("%s must be thread or resource, got %q", option, s)
}

// resolve validates and defaults every section of c.
func (c Config) resolve() (settings, error) {
	return c.resolveOver(settings{}, nil)
}

// resolveOver resolves c, the merge of an override over the config that
// base was resolved from: the sections over does not set are taken from
// base as they are (a nil over resolves every section). Observer and
// reflector models are filled by withModels.
func (c Config) resolveOver(base settings, over *Config) (settings, error) {
	all := over == nil
	s := base
	if all || over.LastMessages.IsSet() || over.MessageHistory != nil {
		if err := s.resolveHistory(c); err != nil {
			return settings{}, err
		}
	}
	s.readOnly = c.ReadOnly != nil && *c.ReadOnly
	s.retainFullInput = c.RetainFullInput != nil && *c.RetainFullInput
	s.filterIncomplete = c.FilterIncompleteToolCalls == nil || *c.FilterIncompleteToolCalls
	var err error
	if all || over.SemanticRecall != nil {
		if s.recall, err = resolveRecall(c.SemanticRecall); err != nil {
			return settings{}, err
		}
	}
	if all || over.WorkingMemory != nil {
		s.wm = nil
		if w := c.WorkingMemory; w != nil && w.Enabled && !w.Disabled {
			wc, err := w.resolve(base.wm)
			if err != nil {
				return settings{}, err
			}
			s.wm = &wc
		}
	}
	if all || over.GenerateTitle != nil {
		if s.title, err = resolveTitle(c.GenerateTitle); err != nil {
			return settings{}, err
		}
	}
	if all || over.ObservationalMemory != nil {
		s.observation = nil
		if o := c.ObservationalMemory; o != nil && !o.Disabled {
			if s.observation, err = o.resolve(); err != nil {
				return settings{}, err
			}
		}
	}
	return s, nil
}

// resolveHistory resolves LastMessages and MessageHistory together: an unset
// LastMessages is 10 messages, or no count cap under a token budget.
func (s *settings) resolveHistory(c Config) error {
	s.maxMessages, s.maxTokens, s.atMaxRemove = -1, 0, 0
	switch c.LastMessages.mode {
	case lmCount:
		if c.LastMessages.n < 0 {
			return invalidConfig("lastMessages must be a finite non-negative integer")
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
	h := c.MessageHistory
	if h == nil {
		return nil
	}
	if h.MaxTokens < 0 {
		return invalidConfig("messageHistory.maxTokens must be a finite non-negative number")
	}
	s.maxTokens = h.MaxTokens
	s.atMaxRemove = h.MaxTokens / 4
	if h.AtMaxRemoveTokens != nil {
		if *h.AtMaxRemoveTokens < 0 || *h.AtMaxRemoveTokens > h.MaxTokens {
			return invalidConfig("messageHistory.atMaxRemoveTokens must be a finite non-negative number no greater than maxTokens")
		}
		s.atMaxRemove = *h.AtMaxRemoveTokens
	}
	if h.MaxTokens == 0 {
		s.historyEnabled = false
	}
	return nil
}

// resolveRecall validates and defaults semantic recall; nil when off.
func resolveRecall(r *SemanticRecall) (*recall.Settings, error) {
	if r == nil || r.Disabled {
		return nil, nil
	}
	rc := *r
	if rc.TopK < 0 || rc.MaxChunkChars < 0 || rc.Threshold < 0 {
		return nil, invalidConfig("semanticRecall: topK, maxChunkChars and threshold must be non-negative")
	}
	orDefault(&rc.TopK, 4)
	if rc.MessageRange == nil {
		rc.MessageRange = &MessageRange{Before: 1, After: 1}
	} else if rc.MessageRange.Before < 0 || rc.MessageRange.After < 0 {
		return nil, invalidConfig("semanticRecall.messageRange must be non-negative")
	}
	var err error
	if rc.Scope, err = resolveScope("semanticRecall.scope", rc.Scope, store.ScopeResource); err != nil {
		return nil, err
	}
	orDefault(&rc.MaxChunkChars, 16384)
	if err := vector.CheckMode(rc.Mode); err != nil {
		return nil, invalidConfig("semanticRecall.%v", err)
	}
	if err := rc.Filter.Validate(); err != nil {
		return nil, invalidConfig("semanticRecall.filter: %s", err.(*memerr.Error).Msg)
	}
	if h := rc.Hybrid; h != nil {
		alpha := DefaultHybridAlpha
		if h.Alpha != nil {
			alpha = *h.Alpha
		}
		if alpha < 0 || alpha > 1 {
			return nil, invalidConfig("semanticRecall.hybrid.alpha must be within [0, 1]")
		}
		rc.Hybrid = &Hybrid{Alpha: &alpha}
	}
	if err := resolveRecallExtras(&rc); err != nil {
		return nil, err
	}
	return recallSettings(&rc), nil
}

// tokenBudget reports whether history is bounded by tokens.
func (s settings) tokenBudget() bool { return s.historyEnabled && s.maxTokens > 0 }

// mergeRecall overlays the set fields of over on base (both owned by the
// caller); over's Disabled always applies.
func mergeRecall(base, over *SemanticRecall) *SemanticRecall {
	if base == nil || over == nil {
		return pick(base, over)
	}
	base.Disabled = over.Disabled
	setIf(&base.TopK, over.TopK)
	base.MessageRange = pick(base.MessageRange, over.MessageRange)
	setIf(&base.Scope, over.Scope)
	setIf(&base.MaxChunkChars, over.MaxChunkChars)
	setIf(&base.Threshold, over.Threshold)
	base.IndexConfig = mergeIndexConfig(base.IndexConfig, over.IndexConfig)
	if h := over.Hybrid; h != nil && (base.Hybrid == nil || h.Alpha != nil) {
		base.Hybrid = h
	}
	setIf(&base.Mode, over.Mode)
	if !over.Filter.IsZero() {
		base.Filter = over.Filter
	}
	mergeRecallExtras(base, over)
	return base
}

func mergeIndexConfig(base, over vector.IndexConfig) vector.IndexConfig {
	setIf(&base.Type, over.Type)
	setIf(&base.Metric, over.Metric)
	setIf(&base.HNSW.M, over.HNSW.M)
	setIf(&base.HNSW.EfConstruction, over.HNSW.EfConstruction)
	setIf(&base.IVFFlat.Lists, over.IVFFlat.Lists)
	return base
}

// IndexText configures what semantic recall indexes for a message. It is
// instance-wide (Options.Config); per-call values are ignored, because every
// record of an index must be made the same way. Changing it changes the index
// version: recall then reports ErrIndexVersionMismatch until ReindexResource
// (or Reindex) rebuilds the resource's records.
type IndexText struct {
	// ContextMessages is how many previous messages of the thread are
	// indexed with a message for keyword search (the embedding and the
	// record's Text are the message's own); nil means
	// DefaultContextMessages. A batch is taken as contiguous in its thread.
	ContextMessages *int
	// NoTools leaves tool names, arguments and results out.
	NoTools bool
	// NoFiles leaves file names, alt text and captions out.
	NoFiles bool
}

// DefaultContextMessages is the default IndexText.ContextMessages, chosen on
// LoCoMo (see BENCHMARKS.md, "Retrieval quality").
const DefaultContextMessages = 1

// newIndexing resolves the indexing settings of r (nil: the defaults).
func newIndexing(r *SemanticRecall) (*indexing.Recipe, error) {
	if r == nil {
		return indexing.Configure("", nil, false, false, DefaultContextMessages)
	}
	var context *int
	noTools, noFiles := false, false
	if t := r.IndexText; t != nil {
		context, noTools, noFiles = t.ContextMessages, t.NoTools, t.NoFiles
	}
	return indexing.Configure(r.Language, context, noTools, noFiles, DefaultContextMessages)
}
