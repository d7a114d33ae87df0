package langchaingo

import (
	"context"
	"fmt"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/callbacks"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/schema"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/message"
)

// stepAgent fits every Plan of an agent to the turn's budget (StepAgent).
type stepAgent struct {
	agents.Agent
	m *ConversationBuffer
}

var _ agents.Agent = stepAgent{}

// StepAgent returns a with every model call of an agents.Executor run fitted
// to the token budget of the turn that the executor's memory m began
// (core.Turn.Step). The executor calls Plan before each model call with the
// run's intermediate steps so far; the returned agent then hands a Plan
//   - the steps with the oldest observations shortened to a stub that
//     names the tool and says the result was elided (never the newest), and
//   - the memory variable rendered again from the history that still fits
//     (older history gives way first, then recalled messages, then the
//     newest exchange of history, before any observation is shortened).
//
// The executor keeps its steps whole: what it returns, and what SaveContext
// saves, is every observation as the tool gave it.
//
// The budget counts what memory builds (WithSystem instructions, history,
// input, steps as tool calls and results); the agent's own prompt around
// them (its system message, format instructions, tool descriptions) is not
// counted, so leave room for it or give instructions with WithSystem. Plan
// changes nothing when the memory has no token budget (NewConversationTokenBuffer,
// or MessageHistory.MaxTokens in the config), when the history is not a
// ChatMessageHistory, or when no turn of the executor's call is pending (the
// memory was not given to the executor with agents.WithMemory).
func StepAgent(a agents.Agent, m schema.Memory) agents.Agent {
	var base *ConversationBuffer
	switch b := m.(type) {
	case *ConversationBuffer:
		base = b
	case *ConversationWindowBuffer:
		base = &b.ConversationBuffer
	case *ConversationTokenBuffer:
		base = &b.ConversationBuffer
	}
	return stepAgent{Agent: a, m: base}
}

// Plan fits the steps and the memory variable, then plans with the wrapped agent.
func (s stepAgent) Plan(ctx context.Context, steps []schema.AgentStep, inputs map[string]string, options ...chains.ChainCallOption) ([]schema.AgentAction, *schema.AgentFinish, error) {
	if s.m != nil && len(steps) > 0 {
		var err error
		if steps, inputs, err = s.m.fitSteps(ctx, s.handler(), steps, inputs); err != nil {
			return nil, nil, err
		}
	}
	return s.Agent.Plan(ctx, steps, inputs, options...)
}

// fitSteps returns steps and inputs fitted with the pending turn's Step,
// reported to cb.
func (m *ConversationBuffer) fitSteps(ctx context.Context, cb callbacks.Handler, steps []schema.AgentStep, inputs map[string]string) ([]schema.AgentStep, map[string]string, error) {
	h, ok := m.ChatHistory.(*ChatMessageHistory)
	if !ok || m.x == nil {
		return steps, inputs, nil
	}
	all := make(map[string]any, len(inputs))
	user := make(map[string]any, len(inputs))
	for k, v := range inputs {
		all[k] = v
		if k != m.MemoryKey {
			user[k] = v
		}
	}
	ct, err := m.x.resolveThread(ctx, all, h)
	if err != nil {
		return nil, nil, err
	}
	in, err := GetInputValue(m.x.userInputs(user), m.InputKey)
	if err != nil {
		return steps, inputs, nil // not a call this memory began a turn for
	}
	turn := m.x.pending.peek(pendingKey{ct.threadID, ct.resourceID, in})
	if turn == nil {
		return steps, inputs, nil
	}
	// Each step gets a call id of its own for the conversion, so its
	// observation is found again in the fitted prompt.
	ided := make([]schema.AgentStep, len(steps))
	copy(ided, steps)
	for i := range ided {
		ided[i].Action.ToolID = fmt.Sprintf("step-%d", i)
	}
	produced, err := MessagesToCore(StepsToMessages(ided))
	if err != nil {
		return nil, nil, err
	}
	prompt, err := retrieved(ctx, cb, in, func() ([]message.Message, error) { return turn.Step(ctx, produced) })
	if err != nil {
		return nil, nil, ct.explain(err)
	}
	var hist, resp []message.Message
	for _, msg := range prompt {
		switch msg.Source {
		case message.SourceResponse:
			resp = append(resp, msg)
		case message.SourceInput:
		default:
			hist = append(hist, msg)
		}
	}
	// Only an observation Step shortened is replaced, so the others reach
	// the agent exactly as the tool returned them.
	before := toolResults(produced)
	shortened := map[string]bool{}
	for id, r := range toolResults(resp) {
		shortened[id] = r != before[id]
	}
	out := make([]schema.AgentStep, len(steps))
	copy(out, steps)
	for _, msg := range MessagesFromCore(resp) {
		tm, ok := msg.(llms.ToolChatMessage)
		if !ok || !shortened[tm.ID] {
			continue
		}
		var i int
		if _, err := fmt.Sscanf(tm.ID, "step-%d", &i); err == nil && i >= 0 && i < len(out) {
			out[i].Observation = tm.Content
		}
	}
	fitted, err := m.refit(inputs, turn, hist)
	if err != nil {
		return nil, nil, err
	}
	return out, fitted, nil
}

// refit returns inputs with the memory variable rendered from hist, the
// history a step kept, when the step left some of the turn's history out.
func (m *ConversationBuffer) refit(inputs map[string]string, turn *core.Turn, hist []message.Message) (map[string]string, error) {
	if _, had := inputs[m.MemoryKey]; !had {
		return inputs, nil
	}
	n := 0
	for _, msg := range turn.Messages() {
		if msg.Source != message.SourceInput {
			n++
		}
	}
	if len(hist) == n {
		return inputs, nil
	}
	vars, err := m.render(MessagesFromCore(hist))
	if err != nil {
		return nil, err
	}
	s, ok := vars[m.MemoryKey].(string)
	if !ok {
		return inputs, nil // messages: the executor refuses them anyway
	}
	fitted := make(map[string]string, len(inputs))
	for k, v := range inputs {
		fitted[k] = v
	}
	fitted[m.MemoryKey] = s
	return fitted, nil
}

// toolResults maps the call ids of the tool results in msgs to their result.
func toolResults(msgs []message.Message) map[string]string {
	out := map[string]string{}
	for i := range msgs {
		for _, p := range msgs[i].Content.Parts {
			if ti := p.ToolInvocation; ti != nil && ti.State == message.ToolStateResult {
				out[ti.ToolCallID] = string(ti.Result)
			}
		}
	}
	return out
}
