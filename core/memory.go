package core

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentmem/agentmem/core/internal/ids"
	"github.com/agentmem/agentmem/core/internal/observe"
	"github.com/agentmem/agentmem/core/internal/onceset"
	"github.com/agentmem/agentmem/core/internal/recall"
	"github.com/agentmem/agentmem/core/internal/thread"
	"github.com/agentmem/agentmem/core/internal/workingmem"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/tokenizer"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// DefaultMaxMessageBytes is the default of Options.MaxMessageBytes, 4 MiB.
const DefaultMaxMessageBytes = 4 << 20

// Options configure a Memory. Only Store is needed for history; semantic
// recall needs Vector (and Embedder unless the store embeds itself).
type Options struct {
	Store    store.Store     // nil: every storage use fails with ErrNoStorage
	Vector   vector.Store    // semantic recall
	Embedder vector.Embedder // required for recall unless Vector.SelfEmbedding()
	// EmbeddingDimension, when set, names the index without a probe; an
	// embedding of another length fails with ErrEmbeddingDimensionMismatch.
	EmbeddingDimension int
	// Tokenizer counts tokens; default tiktoken o200k_base, offline.
	Tokenizer Tokenizer
	// Config is the instance-wide memory configuration.
	Config Config
	// Processors run on the prompt after memory's own steps, in order.
	Processors []Processor
	// Step configures Turn.Step, the fitting of each model call of a turn.
	Step StepOptions
	// Model generates thread titles when Config.GenerateTitle is on, and is
	// the fallback observer and reflector of observational memory.
	Model Model
	// Logger receives background failures (indexing, titles, observational
	// memory) and, once per message, warnings about stored messages read
	// without parts that could not be decoded; default slog.Default().
	Logger *slog.Logger
	// MaxMessageBytes caps one message's content as the stores keep it:
	// JSON (message.MarshalStored), each text once, so a text counts its
	// UTF-8 bytes plus JSON escaping, and tool calls, results and metadata
	// count too. 0 means DefaultMaxMessageBytes (4 MiB). A message over it
	// is refused with ErrMessageTooLarge, naming the message and its
	// encoded size, and nothing of the call is stored.
	MaxMessageBytes int
	// MaxTitleBytes caps a thread title; default DefaultMaxTitleBytes.
	// Longer titles are refused with ErrTooLarge.
	MaxTitleBytes int
	// MaxWorkingMemoryBytes caps working memory; default
	// DefaultMaxWorkingMemoryBytes. Larger updates are refused with
	// ErrTooLarge (the updateWorkingMemory tool tells the model the limit).
	MaxWorkingMemoryBytes int
	// TracerProvider and MeterProvider receive agentmem's spans and metrics
	// (see docs/observability.md); nil means the global providers, which
	// are no-ops until the application sets them.
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	// CaptureMessageContent lets spans record message and query text (off:
	// never recorded). The GenAI conventions' switch, the environment
	// variable OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true, turns
	// it on too.
	CaptureMessageContent bool
	// Now and NewID replace the clock and id generator (tests).
	Now   func() time.Time
	NewID func() string
}

// Memory is conversation memory over a Store. It is safe for concurrent use.
type Memory struct {
	opts  Options      // defaulted; Config is read only by New
	conf  configs      // the instance config and its per-call overrides
	entry entry        // the checks every entry point starts with; holds the store
	rules thread.Rules // what a message or title must be to be stored
	tk    Tokenizer
	log   *slog.Logger

	clock  *clock         // creation times
	tokens *messageTokens // counts messages with tk

	rec           *recall.Engine     // semantic recall: indexing state, search, the recall tool
	bg            sync.WaitGroup     // background work Close awaits
	hist          *historyReader     // a turn's history and system messages
	intake        intake             // a turn's input and thread
	effects       effects            // what follows a save
	threads       *thread.Keeper     // threads and messages: saves, updates, clones, moves; nil without a store
	observer      *observe.Observer  // nil without a store
	workingMemory *workingmem.Keeper // nil without a store
	skipped       *skippedParts      // stored messages whose skipped parts were reported
	spans         spans              // spans and metrics
}

// New validates opts and returns a Memory. New without a Store succeeds, but
// every call that needs storage returns ErrNoStorage.
func New(opts Options) (*Memory, error) {
	cfg := opts.Config.Clone()
	s, err := cfg.resolve()
	if err == nil {
		s, err = s.withModels(opts.Model)
	}
	if err != nil {
		return nil, err
	}
	if err := opts.Step.validate(); err != nil {
		return nil, err
	}
	if opts.EmbeddingDimension < 0 {
		return nil, memerr.Errorf(memerr.CodeInvalidConfig, "New", "embeddingDimension must be a positive integer")
	}
	opts.Config = Config{}
	m := &Memory{opts: opts, tk: opts.Tokenizer, log: opts.Logger}
	ix, err := newIndexing(cfg.SemanticRecall)
	if err != nil {
		return nil, err
	}
	var checked *store.Checked // nil without Options.Store
	if opts.Store != nil {
		checked = store.Check(opts.Store)
	}
	if opts.Vector != nil {
		m.opts.Vector = vector.Check(opts.Vector)
	}
	m.entry = entry{store: checked}
	m.spans = instrument(&m.opts)
	m.conf = configs{cfg: cfg, st: s, model: m.opts.Model, vector: m.opts.Vector, embedder: m.opts.Embedder, store: checked}
	if err := m.conf.requireDeps("New", s); err != nil {
		return nil, err
	}
	if m.tk == nil {
		m.tk = tokenizer.Default()
	}
	warmTokenizer(m.tk)
	if m.log == nil {
		m.log = slog.Default()
	}
	m.tokens = &messageTokens{tk: m.tk}
	m.skipped = &skippedParts{set: onceset.New(maxSkippedReported), log: m.log}
	if checked != nil {
		m.observer = observe.New(observe.Deps{Store: checked, Tokenizer: m.tokens, Skipped: m.skipped, Log: m.log, Telemetry: m.spans.tel, Jobs: &m.bg})
	}
	m.opts.fillLimits()
	if m.opts.Now == nil {
		m.opts.Now = time.Now
	}
	if m.opts.NewID == nil {
		m.opts.NewID = ids.New
	}
	m.clock = &clock{now: m.opts.Now}
	m.rules = thread.Rules{MaxMessageBytes: m.opts.MaxMessageBytes, MaxTitleBytes: m.opts.MaxTitleBytes, NewID: m.opts.NewID, Clock: m.clock}
	if checked != nil {
		m.workingMemory = workingmem.New(checked, m.opts.MaxWorkingMemoryBytes, m.log, m.clock)
	}
	m.rec = recall.New(recall.Deps{Vector: m.opts.Vector, Embedder: m.opts.Embedder, Dimension: m.opts.EmbeddingDimension, Recipe: ix,
		Store: checked, Tel: m.spans.tel, Log: m.log, Tokens: m.tk, Skipped: m.skipped})
	m.conf.rec = m.rec
	m.hist = &historyReader{tk: m.tk, tokens: m.tokens, skipped: m.skipped, observer: m.observer}
	m.intake = intake{rules: m.rules, newID: m.opts.NewID, clock: m.clock, tokens: m.tokens}
	m.effects = effects{model: m.opts.Model, entry: m.entry, spans: m.spans, log: m.log, bg: &m.bg, rec: m.rec, observer: m.observer}
	if checked != nil {
		m.threads = thread.New(thread.Deps{Store: checked, Rules: m.rules, Clock: m.clock, NewID: m.opts.NewID, Count: m.tokens.count,
			Index: m.rec, Observer: m.observer, Vectors: m.opts.Vector != nil})
	}
	return m, nil
}

// Store returns the checked storage backend or ErrNoStorage.
func (m *Memory) Store() (store.Store, error) {
	s, err := m.entry.checked()
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Tokenizer returns the tokenizer used for counts.
func (m *Memory) Tokenizer() Tokenizer { return m.tk }

// TokenizedMessages returns how many messages this Memory has tokenized; a turn
// tokenizes only its new messages.
func (m *Memory) TokenizedMessages() int64 { return m.tokens.n.Load() }

// Close waits for background work (indexing retries, titles, background
// observation) to finish.
func (m *Memory) Close(ctx context.Context) error {
	if ctx == nil {
		return memerr.Errorf(memerr.CodeInvalidArgument, "Close", "nil context")
	}
	done := make(chan struct{})
	go func() { m.bg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return memerr.Context("Close", ctx.Err())
	}
}

// clock stamps creation times: strictly increasing UTC times with
// microsecond precision, so messages created in one process keep their
// order.
type clock struct {
	now  func() time.Time
	last atomic.Int64 // last stamp, unix micro
}

// Stamp returns the next creation time.
func (c *clock) Stamp() time.Time {
	now := c.now().UTC().Truncate(time.Microsecond).UnixMicro()
	for {
		last := c.last.Load()
		next := max(now, last+1)
		if c.last.CompareAndSwap(last, next) {
			return time.UnixMicro(next).UTC()
		}
	}
}

// Model is the text-generation interface core uses for thread titles and
// observational memory (observer and reflector). The framework adapters
// provide implementations. Generate must be safe for concurrent use: titles
// and observations of different threads run at the same time, in the
// background when so configured, and ctx bounds each call.
type Model interface {
	Generate(ctx context.Context, system, prompt string) (string, error)
}

// NamedModel is a Model that names the model it calls; the spans of its
// observer and reflector calls carry the name as gen_ai.request.model.
type NamedModel interface {
	Model
	ModelName() string
}

// warmer is a Tokenizer that can load its data ahead of the first count
// (tokenizer.Tokenizer is one).
type warmer interface{ Warm() }

// warmTokenizer starts loading tk's data in the background, so that the
// first save or turn of the process does not pay the whole load on its
// critical path. The default tiktoken o200k_base has a header to check and
// a table to page in (see tokenizer.Tokenizer.Warm); a custom Tokenizer may
// have more. The load happens once per process whatever the number of
// Memory values.
func warmTokenizer(tk Tokenizer) {
	if w, ok := tk.(warmer); ok {
		go w.Warm()
	}
}
