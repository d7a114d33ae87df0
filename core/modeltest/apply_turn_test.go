package modeltest

import (
	"fmt"
	"slices"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
)

// loop begins a turn on o's thread and runs its agent loop of o.N%4 tool
// steps; it returns the turn, the messages produced and the input.
func (r *runner) loop(o op) (*core.Turn, []core.Message, core.Message, error) {
	thread, res, exists, wrong := r.target(o)
	in := r.userMsg(fmt.Sprintf("m%d_u", r.step), "", "", saidText(o.N), metaVariant(o.N), 0)
	turn, err := r.mem.Begin(r.ctx, core.TurnRequest{ThreadID: thread, ResourceID: res,
		System: []string{"You are a test."}, Input: []core.Message{in}})
	if wrong {
		return nil, nil, in, expectCode("Begin under another resource", err, memerr.CodeResourceMismatch)
	}
	if err != nil {
		if typedRefusal(err) {
			return nil, nil, in, nil
		}
		return nil, nil, in, fmt.Errorf("Begin: %v", err)
	}
	if !exists {
		r.mod.threads[thread] = &mThread{id: thread, resource: res, meta: map[string]any{}}
	}
	if err := r.fits("Begin", turn.Messages()); err != nil {
		return nil, nil, in, err
	}
	var produced []core.Message
	for k := range o.N % 4 {
		call, result := toolPair(fmt.Sprintf("m%d_t%d", r.step, k), o.N+k)
		produced = append(produced, call, result)
		prompt, err := turn.Step(r.ctx, produced)
		if err != nil {
			return nil, nil, in, fmt.Errorf("Step %d: %v", k, err)
		}
		if err := r.fits(fmt.Sprintf("Step %d", k), prompt); err != nil {
			return nil, nil, in, err
		}
	}
	return turn, produced, in, nil
}

// fits checks the documented budget: without observational memory a
// prompt stays within MessageHistory.MaxTokens unless what is protected
// (instructions, input, the loop's messages) alone is larger; then nothing
// remembered may stay.
func (r *runner) fits(what string, prompt []core.Message) error {
	if r.set.om {
		return nil
	}
	n := budget.PromptTokens(prompt)
	if n <= historyBudget {
		return nil
	}
	for _, m := range prompt {
		if m.Source == message.SourceMemory || m.Source == message.SourceRecall {
			return fmt.Errorf("%s prompt has %d tokens, the budget is %d, and keeps remembered message %s", what, n, historyBudget, m.ID)
		}
	}
	return nil
}

func (r *runner) turn(o op) error {
	turn, produced, in, err := r.loop(o)
	if err != nil || turn == nil {
		return err
	}
	final := r.userMsg(fmt.Sprintf("m%d_a", r.step), "", "", "answer "+saidText(o.N+1), nil, 1)
	if err := turn.Commit(r.ctx, append(slices.Clone(produced), final)); err != nil {
		return fmt.Errorf("Commit: %v", err)
	}
	return r.adoptStored(turn.Thread(), append([]core.Message{in}, append(produced, final)...), nil)
}

// abandonedLoop runs a loop and never commits, as a process that dies in
// the middle of it: every step saved the loop so far, so the input and
// every produced message are stored once a step ran, and nothing before.
func (r *runner) abandonedLoop(o op) error {
	turn, produced, in, err := r.loop(o)
	if err != nil || turn == nil {
		return err
	}
	if len(produced) == 0 {
		return r.adoptStored(turn.Thread(), nil, nil)
	}
	return r.adoptStored(turn.Thread(), append([]core.Message{in}, produced...), nil)
}

// adoptStored reads back a turn's messages: every one of must is stored
// (under the id given, or merged into its tool call's message), those of
// may may be; the model takes what is stored.
func (r *runner) adoptStored(th core.Thread, must, may []core.Message) error {
	got, err := r.mem.Recall(r.ctx, allOf(th.ID, th.ResourceID))
	if err != nil {
		return fmt.Errorf("Recall after the turn: %v", err)
	}
	byID := map[string]core.Message{}
	for _, m := range got.Messages {
		byID[m.ID] = m
	}
	var adopt []core.Message
	for _, m := range append(slices.Clone(must), may...) {
		s, ok := byID[m.ID]
		if !ok && isToolResult(m) {
			continue // merged into its call's message
		}
		if !ok && slices.ContainsFunc(must, func(x core.Message) bool { return x.ID == m.ID }) {
			return fmt.Errorf("turn message %s is not stored in %s", m.ID, th.ID)
		}
		if ok {
			adopt = append(adopt, s)
		}
	}
	r.adopt(adopt)
	return nil
}

func isToolResult(m core.Message) bool {
	return len(m.Content.Parts) == 1 && m.Content.Parts[0].ToolInvocation != nil &&
		m.Content.Parts[0].ToolInvocation.State == "result"
}
