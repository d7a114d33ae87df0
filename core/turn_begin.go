package core

import (
	"context"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"

	"github.com/agentmem/agentmem/core/internal/indexing"
	"github.com/agentmem/agentmem/core/internal/thread"
	"github.com/agentmem/agentmem/core/internal/transcript"
	"github.com/agentmem/agentmem/core/internal/window"
	"github.com/agentmem/agentmem/core/store"
)

// build is what the steps of Begin build up.
type build struct {
	s        *store.Checked
	supplied map[string]bool   // ids the caller gave (generated ones are new by construction)
	input    []message.Message // the turn's input, filtered unless RetainFullInput
	src      historySource
	history  []message.Message // remembered messages, Source memory
	system   []message.Message // instructions, observations, working memory, other threads
	others   []message.Message // messages of other threads, rendered as one system message
	conv     []message.Message // history, recalled messages, context and input
	prompt   []message.Message
}

// beginStep is one named step of Begin; its name prefixes its errors.
type beginStep struct {
	name string
	run  func(t *Turn, ctx context.Context, b *build) error
}

// beginSteps is Begin, in order.
var beginSteps = []beginStep{
	{"input", (*Turn).stepInput},
	{"thread", (*Turn).stepThread},
	{"history", (*Turn).stepHistory},
	{"tool results", (*Turn).stepToolResults},
	{"input filter", (*Turn).stepFilterInput},
	{"instructions", (*Turn).stepInstructions},
	{"working memory", (*Turn).stepWorkingMemory},
	{"semantic recall", (*Turn).stepRecall},
	{"context", (*Turn).stepContext},
	{"token budget", (*Turn).stepBudget},
	{"processors", (*Turn).stepProcessors},
	{"tool pairing", (*Turn).stepPairTools},
}

// Begin loads memory for a turn and builds its prompt. Its steps, in order:
//
//   - input: validate and stamp the input and context messages;
//   - thread: load the thread, creating it unless read-only;
//   - history: the remembered conversation (count and/or token window after
//     the boundary; with observational memory, the observations and every
//     message not yet observed, never trimmed);
//   - tool results: complete input tool results from their calls in the
//     history (see fillToolResults);
//   - input filter: drop echoed input already in storage (unless
//     RetainFullInput);
//   - instructions, then observations;
//   - working memory;
//   - semantic recall: same-thread hits merged into history, other-thread
//     hits in one fenced system message (a failure is logged, see RecallErr);
//   - context;
//   - token budget: trim remembered messages, persisting the boundary;
//   - processors, then a final tool-pairing guard.
//
// An error names the step it came from.
func (m *Memory) Begin(ctx context.Context, req TurnRequest) (turn *Turn, err error) {
	ctx, sp := m.spans.startOp(ctx, "Begin", req.ThreadID, req.ResourceID, "", m.spans.contentAttrs(req.Input)...)
	defer func() { err = m.spans.endBegin(ctx, sp, turn, err) }()
	s, err := m.entry.open(ctx, "Begin")
	if err != nil {
		return nil, err
	}
	if err := store.ValidateID("threadId", req.ThreadID); err != nil {
		return nil, err
	}
	if err := store.ValidateID("resourceId", req.ResourceID); err != nil {
		return nil, err
	}
	st, err := m.conf.settings(req.Config)
	if err != nil {
		return nil, err
	}
	st.readOnly = st.readOnly || req.ReadOnly
	t := &Turn{m: m, st: st, req: req}
	b := &build{s: s, src: m.hist.newHistorySource(st)}
	for _, step := range beginSteps {
		if err := step.run(t, ctx, b); err != nil {
			return nil, stepError(step.name, err)
		}
	}
	t.prompt = b.prompt
	return t, nil
}

// stepError names the step of Begin an error came from in its Op
// ("Begin: history: ListMessages"), keeping code, message and cause.
func stepError(step string, err error) error {
	e, ok := err.(*memerr.Error)
	if !ok {
		return err
	}
	cp := *e
	cp.Op = "Begin: " + step
	if e.Op != "" && e.Op != "Begin" {
		cp.Op += ": " + e.Op
	}
	return &cp
}

func (t *Turn) stepInput(_ context.Context, b *build) error {
	b.supplied = map[string]bool{}
	for _, in := range t.req.Input {
		if in.ID != "" {
			b.supplied[in.ID] = true
		}
	}
	input, err := t.m.intake.turnInput("Begin", t.req)
	if err != nil {
		return err
	}
	for i := range t.req.Context {
		if err := t.m.rules.ValidateMessage("Begin", &t.req.Context[i], thread.At("context", i, len(t.req.Context))); err != nil {
			return err
		}
	}
	b.input = input
	return nil
}

func (t *Turn) stepThread(ctx context.Context, b *build) (err error) {
	t.thread, err = t.m.intake.turnThread(ctx, b.s, t.req, t.st.readOnly)
	return err
}

func (t *Turn) stepHistory(ctx context.Context, b *build) (err error) {
	b.history, err = b.src.load(ctx, b.s, t.thread, b.input)
	t.prior = indexing.Prior{Thread: t.thread.ID, Messages: b.history, Complete: b.src.complete(), Bare: b.src.bare()}
	if o, ok := b.src.(*observedHistory); ok && err == nil {
		t.unobserved, t.obs = o.allUnobserved(), o.view.Shown()
	}
	return err
}

func (t *Turn) stepFilterInput(ctx context.Context, b *build) error {
	st := t.st
	var err error
	if t.persist, b.history, err = t.m.intake.filterInput(ctx, b.s, st, b.history, b.src.hasPast(), b.input, b.supplied); err != nil {
		return err
	}
	if !st.retainFullInput && (st.historyEnabled || st.observation != nil) {
		b.input = t.persist
	} else if st.retainFullInput {
		// The input is kept as supplied: a stored message it echoes is in the
		// prompt once, at its input position, not also as history.
		b.history = window.WithoutIDs(b.history, b.input)
	}
	return nil
}

func (t *Turn) stepInstructions(_ context.Context, b *build) error {
	for _, text := range t.req.System {
		b.system = append(b.system, t.m.hist.systemMessage(text))
	}
	observations, others := b.src.frame()
	b.system = append(b.system, observations...)
	b.others = others
	return nil
}

func (t *Turn) stepWorkingMemory(ctx context.Context, b *build) error {
	if t.st.wm == nil {
		return nil
	}
	wm, tool, err := t.m.workingMemory.Turn(ctx, t.st.wm.settings(), t.thread, t.st.readOnly)
	t.tools, t.memoryErr = nil, err
	if tool != nil {
		t.tools = []Tool{t.m.workingMemoryTool(*tool)}
	}
	if wm != "" {
		b.system = append(b.system, t.m.hist.systemMessage(wm))
	}
	return nil
}

func (t *Turn) stepRecall(ctx context.Context, b *build) error {
	b.conv = window.SetSource(b.history, message.SourceMemory)
	if t.st.recall != nil && t.st.recall.Tool != nil && t.thread.ResourceID != "" {
		t.tools = append(t.tools, recallTool(t.m.rec, t.st.recall, t.thread))
	}
	if t.st.recall != nil {
		same, other, inc, err := t.m.rec.ForTurn(ctx, b.s, t.st.recall, t.thread, b.conv, b.input)
		for _, list := range [][]message.Message{same, other} {
			for i := range list {
				t.m.hist.ensureTokens(&list[i])
			}
		}
		if err != nil {
			t.recallErr = err
			t.m.log.WarnContext(ctx, "agentmem: semantic recall failed; the turn goes on with history", "err", err)
		}
		b.conv, t.recalled = window.MarkRecalled(b.conv, same, inc)
		b.others = append(b.others, other...)
	}
	if len(b.others) > 0 {
		b.system = append(b.system, t.m.hist.systemMessage(transcript.OtherThreads(window.Merge(b.others))))
	}
	return nil
}

func (t *Turn) stepContext(_ context.Context, b *build) error {
	extra := window.SetSource(window.Clone(t.req.Context), message.SourceContext)
	for i := range extra {
		t.m.tokens.count(&extra[i])
	}
	b.conv = append(b.conv, extra...)
	b.conv = append(b.conv, b.input...)
	return nil
}

func (t *Turn) stepBudget(ctx context.Context, b *build) (err error) {
	if b.src.trims() {
		if b.conv, err = t.trim(ctx, b.s, b.system, b.conv); err != nil {
			return err
		}
	}
	b.conv, err = t.m.hist.fillBare(ctx, b.s, b.conv, b.src.bare())
	return err
}

func (t *Turn) stepProcessors(ctx context.Context, b *build) (err error) {
	b.prompt = append(b.system, b.conv...)
	for _, p := range t.m.opts.Processors {
		in := ProcessorInput{ThreadID: t.req.ThreadID, ResourceID: t.req.ResourceID, Messages: b.prompt, Tokenizer: t.m.tk}
		if b.prompt, err = p.ProcessInput(ctx, in); err != nil {
			return err
		}
	}
	return nil
}

func (t *Turn) stepPairTools(_ context.Context, b *build) error {
	b.prompt = window.PairToolCalls(b.prompt, t.st.filterIncomplete)
	return nil
}

// stepToolResults is the Begin step "tool results" (see window.FillToolResults).
func (t *Turn) stepToolResults(_ context.Context, b *build) error {
	window.FillToolResults(b.input, b.history)
	return nil
}
