package modeltest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/vector/local"
)

var base = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// tagRE finds the message ids the harness writes into message text.
var tagRE = regexp.MustCompile(`\bm\d+_[a-z0-9]+\b`)

// flakyEmbedder is the offline hash embedder that fails while down, as an
// embedding service that is unreachable.
type flakyEmbedder struct {
	*local.HashEmbedder
	down atomic.Bool
}

func (e *flakyEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if e.down.Load() {
		return nil, errors.New("embedder down (scripted)")
	}
	return e.HashEmbedder.Embed(ctx, texts)
}

// observer is the scripted observer and reflector: one observation line
// per message id it is shown, so an observation names what it covers.
type observer struct{}

func (observer) Generate(ctx context.Context, system, prompt string) (string, error) {
	if _, msgs, ok := strings.Cut(prompt, "New messages to observe:"); ok {
		prompt = msgs
	}
	var b strings.Builder
	for _, tag := range tagRE.FindAllString(prompt, -1) {
		fmt.Fprintf(&b, "- [2026-01-01] (low) saw %s\n", tag)
	}
	if b.Len() == 0 {
		b.WriteString("- [2026-01-01] (low) nothing new\n")
	}
	return b.String(), nil
}

// setup is what a seed decides besides its operations: observational
// memory and its scope, working memory's scope.
type setup struct {
	om      bool
	omScope core.Scope
	buffer  bool // observations buffered ahead and activated (thread scope)
	wmScope core.Scope
}

// setupOf gives a third of the seeds resource-scoped observational memory
// (even seeds but multiples of 3), where moves and clones cross it, a sixth
// thread-scoped (odd seeds 1 mod 3, those 1 mod 4 buffering), and the rest
// none.
func setupOf(seed uint64) setup {
	s := setup{om: seed%3 == 1 || (seed%2 == 0 && seed%3 == 2), omScope: core.ScopeThread, wmScope: core.ScopeResource}
	if seed%2 == 0 {
		s.omScope = core.ScopeResource
	}
	if seed%5 == 3 {
		s.wmScope = core.ScopeThread
	}
	s.buffer = s.om && s.omScope == core.ScopeThread && seed%4 == 1
	return s
}

const historyBudget = 1000 // tokens of a prompt without observational memory

func (s setup) config() core.Config {
	cfg := core.Config{
		SemanticRecall: &core.SemanticRecall{TopK: 4, MessageRange: &core.MessageRange{},
			Retrieval: &core.Retrieval{TopK: 50, MaxTokens: 1 << 20}},
		WorkingMemory: &core.WorkingMemoryConfig{Enabled: true, Scope: s.wmScope},
	}
	if s.om {
		cfg.ObservationalMemory = &core.ObservationalMemoryConfig{Model: observer{}, Scope: s.omScope,
			Observation: core.ObservationConfig{MessageTokens: 300}, Reflection: core.ReflectionConfig{ObservationTokens: 600}}
		if s.buffer {
			cfg.ObservationalMemory.Observation.BufferTokens = 0.25
		}
	} else {
		cfg.MessageHistory = &core.MessageHistory{MaxTokens: historyBudget}
	}
	return cfg
}

// runner runs one sequence on one backend, step by step.
type runner struct {
	ctx   context.Context
	be    backend
	st    *stores
	mem   *core.Memory
	emb   *flakyEmbedder
	mod   *model
	set   setup
	step  int
	ticks atomic.Int64
	tally *tally // nil: not counted (shrinking, crash and export runs)
}

func (r *runner) now() time.Time {
	return base.Add(time.Duration(r.step)*time.Minute + time.Duration(r.ticks.Add(1))*time.Microsecond)
}

func (r *runner) open() error {
	mem, err := core.New(core.Options{Store: r.st.store, Vector: r.st.vector, Embedder: r.emb, EmbeddingDimension: r.st.dim,
		Config: r.set.config(), Now: r.now, Logger: slog.New(slog.DiscardHandler)})
	r.mem = mem
	return err
}

// reopen closes the Memory (awaiting its background work) and opens the
// stores again where they are files, as a restarted process would.
func (r *runner) reopen() error {
	if err := r.mem.Close(r.ctx); err != nil {
		return fmt.Errorf("Close: %w", err)
	}
	if err := r.st.reopen(); err != nil {
		return err
	}
	return r.open()
}

// expectCode returns nil when err is a typed error of one of codes, and a
// violation otherwise (nil err included).
func expectCode(what string, err error, codes ...memerr.Code) error {
	var me *memerr.Error
	if !errors.As(err, &me) {
		return fmt.Errorf("%s: want an error of %v, got %v", what, codes, err)
	}
	for _, c := range codes {
		if me.Code == c {
			return nil
		}
	}
	return fmt.Errorf("%s: want an error of %v, got %s (%v)", what, codes, me.Code, err)
}

// typedOrNil accepts success or a typed bad-input refusal (hostile
// metadata may be refused, never half-stored).
func typedRefusal(err error) bool {
	var me *memerr.Error
	return errors.As(err, &me) && (me.Code == memerr.CodeInvalidArgument || me.Code == memerr.CodeInvalidMessage ||
		me.Code == memerr.CodeTooLarge || me.Code == memerr.CodeMessageTooLarge)
}

// sigOf is a message's content in short: its text and tool-call parts.
func sigOf(m core.Message) string {
	var b strings.Builder
	for _, p := range m.Content.Parts {
		switch {
		case p.ToolInvocation != nil:
			fmt.Fprintf(&b, "tool:%s:%s;", p.ToolInvocation.ToolCallID, p.ToolInvocation.State)
		case p.Type == message.PartText:
			fmt.Fprintf(&b, "text:%s;", p.Text)
		}
	}
	return b.String()
}

func (r *runner) userMsg(id, thread, res, txt string, meta map[string]any, j int) core.Message {
	m := core.NewMessage(core.RoleUser, id+" "+txt)
	if j%2 == 1 {
		m.Role = core.RoleAssistant
	}
	m.ID, m.ThreadID, m.ResourceID = id, thread, res
	m.CreatedAt = base.Add(time.Duration(r.step)*time.Minute + time.Duration(j)*time.Millisecond)
	m.Content.Metadata = meta
	return m
}

func (r *runner) adopt(msgs []core.Message) {
	for _, m := range msgs {
		r.mod.msgs[m.ID] = &mMessage{id: m.ID, thread: m.ThreadID, resource: m.ResourceID, role: string(m.Role),
			sig: sigOf(m), meta: jsonRound(m.Content.Metadata), at: m.CreatedAt}
	}
}

// words gives message text some vocabulary for keyword and vector search.
var words = []string{"parcel", "passport", "invoice", "garden", "recipe", "meeting", "flight", "pin", "doctor", "budget"}

func phrase(n int) string {
	return fmt.Sprintf("about the %s and the %s, number %d", words[n%len(words)], words[(n/3)%len(words)], n)
}

// textVariants are what stored texts carry besides words now and then, so
// that every store's encoding and the one-pass decoding of contents must
// give them back as written: quotes and backslashes, line breaks and tabs,
// HTML's characters, accented letters, CJK and emoji, U+2028 and a control
// character.
var textVariants = []string{"", "", "", ` "quoted" \ back\slash \"`, "\nsecond line\twith a tab\r\n",
	" <b>&amp;</b>", " café naïve 日本語 🙂", " line\u2028separator \x01 control"}

// saidText is phrase(n) with the text variant of n.
func saidText(n int) string { return phrase(n) + textVariants[(n/5)%len(textVariants)] }
