package core

import (
	"fmt"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
	"time"

	"github.com/agentmem/agentmem/core/internal/observe"
)

// Defaults of observational memory.
const (
	DefaultObservationMessageTokens     = 30000
	DefaultObservationMaxTokensPerBatch = 10000
	DefaultReflectionObservationTokens  = 40000
	DefaultObservationTimeout           = 60 * time.Second
	// DefaultMaxUnobservedMessages is the safety cap on unobserved messages
	// loaded into one prompt (the newest are kept) and observed in one cycle.
	DefaultMaxUnobservedMessages = 1000
)

// ObservationalMemoryConfig configures observational memory (OM): instead of
// raw history, an observer model turns the conversation into dated,
// prioritised observation lines once the unobserved messages pass
// Observation.MessageTokens, and a reflector model condenses the observations
// into a new generation once they pass Reflection.ObservationTokens. A turn
// then sees the observations (system messages) and only the messages not yet
// observed; OM replaces message-history loading and token trimming, while
// semantic recall and working memory still apply.
//
// A nil *ObservationalMemoryConfig leaves the setting unset (off);
// &ObservationalMemoryConfig{} enables it with defaults; Disabled turns it off
// (e.g. per call). In a Config merge, the fields an override sets replace
// those of the base one by one (see Config.Merge); an override's Model
// replaces both role models, and an override's ObserverModel or
// ReflectorModel splits a base Model into the two roles first.
type ObservationalMemoryConfig struct {
	Disabled bool
	// Model is the observer and the reflector; Options.Model is the fallback.
	// Setting it together with ObserverModel or ReflectorModel is an error.
	Model          Model
	ObserverModel  Model
	ReflectorModel Model
	Observation    ObservationConfig
	Reflection     ReflectionConfig
	// Scope is ScopeThread (default: one record per thread) or ScopeResource
	// (one record shared by all threads of the resource).
	Scope store.Scope
	// Background runs observation and reflection after Commit returns, in a
	// bounded worker: one cycle in flight per record, extra requests
	// coalesced; Memory.Close waits for it. The default (false) runs them
	// inside Commit, synchronously and deterministically.
	Background bool
	// Timeout bounds each observer or reflector call; default 60s. A call that
	// fails or times out is logged and retried on a later turn; the turn
	// itself never fails because of it.
	Timeout time.Duration
	// MaxUnobservedMessages caps the unobserved messages a prompt loads (the
	// newest are kept) and one cycle observes; default 1000.
	MaxUnobservedMessages int
	// ObserverInstructions and ReflectorInstructions replace the built-in
	// system prompts of the two models.
	ObserverInstructions  string
	ReflectorInstructions string
	// Instruction is appended to the system prompts of both models (the
	// built-in ones or their replacements), as Mastra's instruction: what
	// to keep or leave out, without giving up the built-in format.
	Instruction string
	// ShareTokenBudget lets the unobserved messages use the room the
	// observations leave in MessageTokens + Reflection.ObservationTokens:
	// they are observed past that total minus the observations' tokens, never
	// below MessageTokens. Reflection still starts at ObservationTokens. It
	// cannot be combined with BufferTokens (ErrInvalidConfig).
	ShareTokenBudget bool
	// DisableContinuationHints stops asking the observer and reflector for
	// continuation hints (Mastra's continuationHints: false): the current
	// task and a suggested next response, stored in the thread's metadata
	// and shown after the observations. Hints stored earlier are not shown.
	DisableContinuationHints bool
}

// ObservationConfig configures the observer.
type ObservationConfig struct {
	// MessageTokens: once the unobserved messages (by their stored token
	// counts) exceed it, they are observed; default 30000.
	MessageTokens int
	// MaxTokensPerBatch caps the messages sent to one observer call; each
	// batch is stored as soon as it is observed; default 10000.
	MaxTokensPerBatch int
	// BufferTokens turns on buffering (Mastra's bufferTokens; 0 is off;
	// below 1 a fraction of MessageTokens, else tokens; thread scope): a
	// background observer call stores a chunk every BufferTokens of new
	// unobserved tokens; chunks are activated, without a model call, when
	// the unobserved messages reach MessageTokens (see docs/agent-loop.md).
	BufferTokens float64
	// BufferActivation: how much activation observes; a ratio of
	// MessageTokens, or (>= 1000) the tokens to keep raw; default 0.8.
	BufferActivation float64
	// BlockAfter: past it Commit observes synchronously; [1, 100)
	// multiplies MessageTokens, else tokens; default 1.2 with buffering.
	BlockAfter float64
}

// ReflectionConfig configures the reflector.
type ReflectionConfig struct {
	// ObservationTokens: once the active observations exceed it, the
	// reflector condenses them into a new generation; default 40000.
	ObservationTokens int
	// BufferActivation starts a background reflection at this ratio of
	// ObservationTokens, activated once they pass it; default 0.5 with
	// observation buffering. BlockAfter: past it Commit reflects
	// synchronously (as Observation.BlockAfter; default 1.2).
	BufferActivation, BlockAfter float64
}

// resolve validates o and fills its defaults.
func (o *ObservationalMemoryConfig) resolve() (*observe.Settings, error) {
	bad := func(format string, a ...any) (*observe.Settings, error) {
		return nil, &memerr.Error{Code: memerr.CodeInvalidConfig, Msg: "observationalMemory." + fmt.Sprintf(format, a...)}
	}
	if o.Model != nil && (o.ObserverModel != nil || o.ReflectorModel != nil) {
		return bad("model cannot be combined with observerModel or reflectorModel; set either model (both) or each one")
	}
	obs, ref := o.Observation, o.Reflection
	switch {
	case obs.MessageTokens < 0:
		return bad("observation.messageTokens must be a positive integer")
	case obs.MaxTokensPerBatch < 0:
		return bad("observation.maxTokensPerBatch must be a positive integer")
	case ref.ObservationTokens < 0:
		return bad("reflection.observationTokens must be a positive integer")
	case o.Timeout < 0:
		return bad("timeout must be positive")
	case o.MaxUnobservedMessages < 0:
		return bad("maxUnobservedMessages must be a positive integer")
	case o.ShareTokenBudget && (obs.BufferTokens != 0 || ref.BufferActivation != 0):
		return bad("shareTokenBudget cannot be combined with buffering; leave observation.bufferTokens and reflection.bufferActivation 0")
	}
	s := &observe.Settings{
		Observer: o.ObserverModel, Reflector: o.ReflectorModel,
		MessageTokens: obs.MessageTokens, MaxTokensPerBatch: obs.MaxTokensPerBatch, ReflectTokens: ref.ObservationTokens,
		Scope: o.Scope, Background: o.Background, Timeout: o.Timeout, MaxUnobserved: o.MaxUnobservedMessages,
		ObserverInstructions: o.ObserverInstructions, ReflectorInstructions: o.ReflectorInstructions,
		Instruction: o.Instruction, ShareBudget: o.ShareTokenBudget, Hints: !o.DisableContinuationHints,
	}
	if o.Model != nil {
		s.Observer, s.Reflector = o.Model, o.Model
	}
	orDefault(&s.MessageTokens, DefaultObservationMessageTokens)
	orDefault(&s.MaxTokensPerBatch, DefaultObservationMaxTokensPerBatch)
	orDefault(&s.ReflectTokens, DefaultReflectionObservationTokens)
	orDefault(&s.Timeout, DefaultObservationTimeout)
	orDefault(&s.MaxUnobserved, DefaultMaxUnobservedMessages)
	var err error
	if s.Scope, err = resolveScope("observationalMemory.scope", s.Scope, store.ScopeThread); err != nil {
		return nil, err
	}
	if s.Buffer, err = observe.ResolveBuffer(observe.BufferInput{MessageTokens: s.MessageTokens, ReflectTokens: s.ReflectTokens,
		BufferTokens: obs.BufferTokens, Activation: obs.BufferActivation, BlockAfter: obs.BlockAfter,
		ReflectActivation: ref.BufferActivation, ReflectBlockAfter: ref.BlockAfter, ResourceScope: s.Scope == store.ScopeResource}); err != nil {
		return bad("%v", err)
	}
	return s, nil
}

// withModels fills the observer and reflector from the fallback model and
// fails when observational memory is on without any model.
func (s settings) withModels(fallback Model) (settings, error) {
	if s.observation == nil {
		return s, nil
	}
	o := *s.observation
	if o.Observer == nil {
		o.Observer = fallback
	}
	if o.Reflector == nil {
		o.Reflector = fallback
	}
	if o.Observer == nil || o.Reflector == nil {
		return settings{}, &memerr.Error{Code: memerr.CodeInvalidConfig,
			Msg: "observationalMemory needs a model: set observationalMemory.model (or observerModel and reflectorModel) or Options.Model"}
	}
	s.observation = &o
	return s, nil
}

// mergeObservational overlays the set fields of over on base (both owned by
// the caller); over's Disabled always applies.
func mergeObservational(base, over *ObservationalMemoryConfig) *ObservationalMemoryConfig {
	if base == nil || over == nil {
		return pick(base, over)
	}
	base.Disabled = over.Disabled
	switch {
	case over.Model != nil:
		base.Model, base.ObserverModel, base.ReflectorModel = over.Model, nil, nil
	case over.ObserverModel != nil || over.ReflectorModel != nil:
		if base.Model != nil {
			base.ObserverModel, base.ReflectorModel, base.Model = base.Model, base.Model, nil
		}
		setIf(&base.ObserverModel, over.ObserverModel)
		setIf(&base.ReflectorModel, over.ReflectorModel)
	}
	setIf(&base.Observation.MessageTokens, over.Observation.MessageTokens)
	setIf(&base.Observation.MaxTokensPerBatch, over.Observation.MaxTokensPerBatch)
	setIf(&base.Observation.BufferTokens, over.Observation.BufferTokens)
	setIf(&base.Observation.BufferActivation, over.Observation.BufferActivation)
	setIf(&base.Observation.BlockAfter, over.Observation.BlockAfter)
	setIf(&base.Reflection.ObservationTokens, over.Reflection.ObservationTokens)
	setIf(&base.Reflection.BufferActivation, over.Reflection.BufferActivation)
	setIf(&base.Reflection.BlockAfter, over.Reflection.BlockAfter)
	setIf(&base.Scope, over.Scope)
	base.Background = base.Background || over.Background
	base.ShareTokenBudget = base.ShareTokenBudget || over.ShareTokenBudget
	base.DisableContinuationHints = base.DisableContinuationHints || over.DisableContinuationHints
	setIf(&base.Timeout, over.Timeout)
	setIf(&base.MaxUnobservedMessages, over.MaxUnobservedMessages)
	setIf(&base.ObserverInstructions, over.ObserverInstructions)
	setIf(&base.ReflectorInstructions, over.ReflectorInstructions)
	setIf(&base.Instruction, over.Instruction)
	return base
}
