package core

import (
	"context"
	"encoding/json"
	"time"

	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// promptTokens is the token count of a prompt by the project's own counter.
func promptTokens(msgs ...[]Message) int {
	total := tokensReplyPriming
	for _, l := range msgs {
		for i := range l {
			total += l[i].Tokens
		}
	}
	return total
}

// PromptTokens returns the token count of a prompt as the budget counts it.
func PromptTokens(msgs []Message) int { return promptTokens(msgs) }

// trim enforces the token budget on the whole prompt: over MaxTokens,
// remembered messages give way (in the order of rememberedPolicy) until the
// prompt is at most MaxTokens − AtMaxRemoveTokens. System, input and context
// messages are never dropped. Dropped sliding history of this thread
// advances the persisted boundary, so later turns start after it.
func (t *Turn) trim(ctx context.Context, s *CheckedStore, system, conv []Message) ([]Message, error) {
	st := t.st
	if promptTokens(system, conv) <= st.maxTokens {
		return conv, nil
	}
	res := budget.Fit(conv, rememberedPolicy(conv, t.recalled, st.maxTokens-st.atMaxRemove, promptTokens(system)))
	var kept []Message
	for i, msg := range conv {
		if res.Keep[i] {
			kept = append(kept, msg)
		} else {
			t.trimmed = append(t.trimmed, msg)
		}
	}
	if st.readOnly {
		return kept, nil
	}
	if b, ok := boundaryFor(t.thread.ID, slidingOnly(t.trimmed), st); ok {
		b = t.seen(b, conv)
		stored, err := s.AdvanceBoundary(ctx, t.thread.ID, t.thread.ResourceID, b)
		if err != nil {
			return nil, err
		}
		t.thread.Boundary = &stored
	}
	return kept, nil
}

// boundaryFor is the boundary candidate for removed messages of one thread:
// the newest removed timestamp and the ids removed at exactly that time.
func boundaryFor(threadID string, removed []Message, st settings) (store.Boundary, bool) {
	var newest time.Time
	var ids []string
	for _, msg := range removed {
		if msg.ThreadID != threadID {
			continue
		}
		switch {
		case msg.CreatedAt.After(newest):
			newest, ids = msg.CreatedAt, []string{msg.ID}
		case msg.CreatedAt.Equal(newest):
			ids = append(ids, msg.ID)
		}
	}
	if ids == nil {
		return store.Boundary{}, false
	}
	return store.Boundary{CreatedAt: newest, MessageIDs: ids, MaxTokens: st.maxTokens, AtMaxRemoveTokens: st.atMaxRemove}, true
}

// pairToolCalls is the final guard before a prompt leaves memory: a tool call
// without a result anywhere in the prompt is removed (or, with
// keepIncomplete false, given a pending placeholder result), so no provider
// receives an unpaired tool call. Messages left empty are dropped.
func pairToolCalls(prompt []Message, filterIncomplete bool) []Message {
	resolved := map[string]bool{}
	for i := range prompt {
		for _, p := range prompt[i].Content.Parts {
			if ti := p.ToolInvocation; ti != nil && ti.State == message.ToolStateResult {
				resolved[ti.ToolCallID] = true
			}
		}
	}
	unpaired := func(p *Part) bool {
		ti := p.ToolInvocation
		return ti != nil && ti.State != message.ToolStateResult && !resolved[ti.ToolCallID]
	}
	some := false
	for i := range prompt {
		for j := range prompt[i].Content.Parts {
			some = some || unpaired(&prompt[i].Content.Parts[j])
		}
	}
	if !some {
		return prompt // the common case: nothing to change, nothing to copy
	}
	out := make([]Message, 0, len(prompt))
	for _, msg := range prompt {
		changed := false
		parts := msg.Content.Parts[:0:0]
		for _, p := range msg.Content.Parts {
			ti := p.ToolInvocation
			if !unpaired(&p) {
				parts = append(parts, p)
				continue
			}
			changed = true
			if !filterIncomplete && ti.State == message.ToolStateCall {
				c := *ti
				c.State, c.Result = message.ToolStateResult, json.RawMessage(`{"status":"pending"}`)
				p.ToolInvocation = &c
				parts = append(parts, p)
			}
		}
		if changed {
			if len(parts) == 0 {
				continue
			}
			msg.Content.Parts = parts
		}
		out = append(out, msg)
	}
	return out
}
