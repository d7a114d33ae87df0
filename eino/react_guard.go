package eino

import (
	"context"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/schema"
	ucb "github.com/cloudwego/eino/utils/callbacks"

	"github.com/agentmem/agentmem/core/memerr"
)

// CodeNoStepModifier is the code of ErrNoStepModifier.
const CodeNoStepModifier memerr.Code = "AGENTMEM_EINO_NO_STEP_MODIFIER"

// ErrNoStepModifier is returned (errors.Is) by a ReactAgent run whose agent
// was not built with this Memory's StepModifier, once the run's tools have
// run: the agent's next model call would get the whole run unfitted to the
// token budget, so the run ends before that call and saves nothing.
var ErrNoStepModifier = memerr.NewSentinel(CodeNoStepModifier,
	"the react agent was not built with this Memory's StepModifier, so its model calls after the first "+
		"cannot be fitted to the token budget; build it with NewReact or set react.AgentConfig.MessageModifier to StepModifier")

// guard returns the agent option that stops a run whose agent fits none of
// its model calls, when the agent's own tools node ends. An already built
// react agent offers no hook to rewrite the prompt of a later model call
// (its MessageModifier is fixed at NewAgent, and callbacks cannot replace a
// node's input), so refusing is the only way not to exceed the budget.
func (r *reactRun) guard() agent.AgentOption {
	tn := &ucb.ToolsNodeCallbackHandlers{
		OnEnd: func(ctx context.Context, _ *callbacks.RunInfo, _ []*schema.Message) context.Context {
			r.checkFitted(ctx)
			return ctx
		},
		OnEndWithStreamOutput: func(ctx context.Context, _ *callbacks.RunInfo, out *schema.StreamReader[[]*schema.Message]) context.Context {
			out.Close()
			r.checkFitted(ctx)
			return ctx
		},
	}
	h := ucb.NewHandlerHelper().ToolsNode(tn).Handler()
	return agent.WithComposeOptions(compose.WithCallbacks(h))
}

// checkFitted stops the run with ErrNoStepModifier when ctx is the agent's
// own tools node and StepModifier fitted none of the run's model calls: a
// tools node runs after a model call, so the first call tells.
func (r *reactRun) checkFitted(ctx context.Context) {
	if !r.col.direct(ctx) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.fitted {
		r.stop(ErrNoStepModifier.New("agentmem/eino: ReactAgent"))
	}
}
