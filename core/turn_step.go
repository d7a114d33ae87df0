package core

import (
	"context"
	"github.com/agentmem/agentmem/core/message"

	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/internal/window"
	"github.com/agentmem/agentmem/core/memerr"
)

// ToolResultPolicy says how Turn.Step makes room with the tool results the
// turn's agent loop produced.
type ToolResultPolicy string

const (
	// ElideAfterRemembered (the default) lets remembered messages give way
	// first (older history, then recalled messages, then the newest
	// exchange of history), then elides the turn's oldest tool results.
	ElideAfterRemembered ToolResultPolicy = ""
	// ElideFirst elides the turn's oldest tool results before any
	// remembered message gives way: for agents whose tool output is bulky
	// and short-lived while the conversation matters.
	ElideFirst ToolResultPolicy = "elide-first"
	// KeepToolResults never elides a tool result: a loop whose results do
	// not fit once remembered messages are gone is sent over the budget.
	KeepToolResults ToolResultPolicy = "keep"
)

// StepOptions configure Turn.Step.
type StepOptions struct {
	// ToolResults is how a step makes room with the turn's tool results.
	ToolResults ToolResultPolicy
	// KeepLatest is how many of the turn's newest tool results are never
	// elided; below 1 it is 1, so the result the model is about to read is
	// always whole.
	KeepLatest int
}

func (o StepOptions) validate() error {
	switch o.ToolResults {
	case ElideAfterRemembered, ElideFirst, KeepToolResults:
		return nil
	}
	return memerr.Errorf(memerr.CodeInvalidConfig, "New", "Step.ToolResults must be %q, %q or %q, got %q", ElideAfterRemembered, ElideFirst, KeepToolResults, o.ToolResults)
}

// stepState is what the steps of one turn share: token counts by content,
// so a loop's growing list of messages is tokenized once, not at every step.
type stepState struct {
	counts budget.Memo
}

// Step returns the prompt of the next model call of the turn's agent loop:
// the turn's prompt (Messages) followed by produced, the messages the loop
// produced so far (assistant tool calls, tool results, in order), fitted to
// the turn's token budget with Begin's rules. System messages, context,
// input and produced messages are kept, a tool call always with its result;
// older history gives way first, oldest first, then recalled messages,
// least relevant first, then the newest exchange of history; then the oldest tool results of produced are
// shortened to a stub that names the tool and says the result was elided,
// never the newest (Options.Step sets the order and how many stay whole).
// StepProcessors run on the fitted prompt, then the tool-pairing guard.
//
// Step saves what the loop produced as it goes, as Mastra saves at every
// step: the turn's input at the first call, then the messages of produced
// not saved yet (or changed since), after the output processors, indexed
// for semantic recall; so a process that dies mid-loop loses at most the
// step in flight, and the next Begin of the thread shows the saved steps
// as history. Each message keeps the id and time it was first saved with,
// by its position in produced, so saving it again (a retried Step or
// Commit) never adds a copy. A failed save is logged, not returned: the
// next Step or Commit saves the same messages. Read-only turns save
// nothing. Step moves no boundary and never shortens what it saves.
//
// With observational memory, a step runs it as Commit does: it activates
// buffered observations, starts buffering and, past the threshold
// (BlockAfter when buffered), observes the unobserved messages, the loop's
// saved ones included (those not saved count towards the thresholds); the
// prompt then shows the new observations instead of the remembered
// messages they cover, and keeps the turn's input and loop messages. Its
// failures are logged (see ObservationErr), never returned.
//
// It may be called any number of times before Commit, each call
// fitting from the whole turn, so a message a step left out comes back when
// room allows. Without a token budget the prompt is not trimmed.
func (t *Turn) Step(ctx context.Context, produced []message.Message) (_ []message.Message, err error) {
	const op = "Step"
	ctx, sp := t.startTurnOp(ctx, op, produced)
	defer func() { err = sp.End(err) }()
	if err := t.enter(ctx, op); err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.committed {
		return nil, memerr.Errorf(memerr.CodeInvalidArgument, op, "turn already committed")
	}
	m := t.m
	resp, err := t.stamp(op, "step", produced)
	if err != nil {
		return nil, err
	}
	for i := range resp {
		resp[i].Tokens, resp[i].TokenEncoding = t.stepTokens(&resp[i]), m.tk.Encoding()
	}
	if err := t.saveStep(ctx, resp); err != nil {
		return nil, err
	}
	t.observeStep(ctx, resp)
	prompt := window.Clone(t.prompt)
	for i := range prompt {
		if prompt[i].Tokens <= 0 || prompt[i].TokenEncoding != m.tk.Encoding() {
			// A processor's message Begin never counted.
			prompt[i].Tokens, prompt[i].TokenEncoding = t.stepTokens(&prompt[i]), m.tk.Encoding()
		}
	}
	if t.st.tokenBudget() {
		prompt, resp = t.fitStep(prompt, resp)
	}
	out := append(prompt, resp...)
	for _, p := range m.opts.Processors {
		sp, ok := p.(StepProcessor)
		if !ok {
			continue
		}
		var err error
		in := ProcessorInput{ThreadID: t.req.ThreadID, ResourceID: t.req.ResourceID, Messages: out, Tokenizer: m.tk}
		if out, err = sp.ProcessInputStep(ctx, in); err != nil {
			return nil, err
		}
	}
	return window.PairToolCalls(out, t.st.filterIncomplete), nil
}

// fitStep applies the token budget to a step: over MaxTokens, it makes room
// down to MaxTokens − AtMaxRemoveTokens, in the order of Options.Step.
func (t *Turn) fitStep(prompt, resp []message.Message) ([]message.Message, []message.Message) {
	st, opts := t.st, t.m.opts.Step
	if budget.PromptTokens(prompt, resp) <= st.maxTokens {
		return prompt, resp
	}
	target := st.maxTokens - st.atMaxRemove
	remembered := func() {
		// With observational memory the history is what is not yet
		// observed, which is never trimmed (as in Begin).
		if st.observation != nil {
			return
		}
		all := append(append(make([]message.Message, 0, len(prompt)+len(resp)), prompt...), resp...)
		res := budget.Fit(all, window.Remembered(all, t.recalled, target, budget.ReplyPriming))
		prompt = budget.Apply(prompt, res.Keep[:len(prompt)])
	}
	elide := func() {
		if opts.ToolResults == KeepToolResults {
			return
		}
		over := budget.PromptTokens(prompt, resp) - target
		resp, _ = window.ElideToolResults(resp, over, opts.KeepLatest, t.stepTokens)
	}
	if opts.ToolResults == ElideFirst {
		elide()
		if budget.PromptTokens(prompt, resp) > target {
			remembered()
		}
		return prompt, resp
	}
	remembered()
	if budget.PromptTokens(prompt, resp) > target {
		elide()
	}
	return prompt, resp
}

// stepTokens counts msg, reusing the count of a message with the same
// role and content counted at an earlier step of the turn.
func (t *Turn) stepTokens(msg *message.Message) int { return t.steps.counts.MessageTokens(t.m.tk, msg) }
