package eino_test

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/sqlite"
	einomem "github.com/agentmem/agentmem/eino"
	"github.com/agentmem/agentmem/tokenizer"
)

// sqliteLoopMemory is loopMemory on a SQLite file.
func sqliteLoopMemory(t *testing.T, thread string) (*core.Memory, *tokenizer.Tokenizer) {
	t.Helper()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "memory.db"))
	must(t, err)
	t.Cleanup(func() { s.Close() })
	return loopMemoryOn(t, s, thread)
}

// loopAgent is a react agent over cm with the report tool, built with the
// message modifier mod.
func loopAgent(t *testing.T, cm *scripted, tk *tokenizer.Tokenizer, mod react.MessageModifier) *react.Agent {
	t.Helper()
	a, err := react.NewAgent(ctx, &react.AgentConfig{ToolCallingModel: cm, MessageModifier: mod,
		ToolsConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{longReportTool{tk}}}, MaxStep: 4*loopSteps + 10})
	must(t, err)
	return a
}

// runLoop runs ra on the loop's question and returns the run's error, also
// one a stream reports at its end.
func runLoop(ra *einomem.ReactAgent, thread string, streaming bool) error {
	c := einomem.WithThread(ctx, thread, "r")
	in := []*schema.Message{schema.UserMessage("Read the reports.")}
	if !streaming {
		_, err := ra.Generate(c, in)
		return err
	}
	sr, err := ra.Stream(c, in)
	if err != nil {
		return err
	}
	defer sr.Close()
	for {
		if _, err := sr.Recv(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// WrapReact over an agent built with the Memory's StepModifier: every model
// call of a 20-step loop of 5k-token tool results fits the 8k budget, and
// the run is saved whole, on SQLite.
func TestWrapReactStepModifierBudget(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		mem, tk := sqliteLoopMemory(t, "wrap-loop")
		cm := loopModel(t, tk)
		m := einomem.New(mem, einomem.Options{System: []string{"Read every report."}})
		ra := m.WrapReact(loopAgent(t, cm, tk, m.StepModifier(nil)))
		must(t, runLoop(ra, "wrap-loop", streaming))
		if cm.calls != loopSteps+1 {
			t.Fatalf("streaming=%v: the model was called %d times", streaming, cm.calls)
		}
		checkLoopStored(t, mem, tk, "wrap-loop")
	}
}

// WrapReact over an agent that does not fit its model calls with this
// Memory's StepModifier (none, or another Memory's) cannot hold the budget
// after the first call: the run ends with ErrNoStepModifier before its
// second model call, no prompt over budget is sent, and nothing is saved.
func TestWrapReactWithoutStepModifierRefuses(t *testing.T) {
	for _, mod := range []string{"none", "another memory's"} {
		for _, streaming := range []bool{false, true} {
			mem, tk := sqliteLoopMemory(t, "bare-loop")
			history := len(stored(t, mem, "bare-loop"))
			cm := loopModel(t, tk)
			var modifier react.MessageModifier
			if mod != "none" {
				other, _ := loopMemory(t, "other")
				modifier = einomem.New(other, einomem.Options{}).StepModifier(nil)
			}
			ra := einomem.New(mem, einomem.Options{}).WrapReact(loopAgent(t, cm, tk, modifier))
			err := runLoop(ra, "bare-loop", streaming)
			if !errors.Is(err, einomem.ErrNoStepModifier) {
				t.Fatalf("modifier %s, streaming=%v: got %v, want ErrNoStepModifier", mod, streaming, err)
			}
			var me *core.Error
			if !errors.As(err, &me) || me.Code != einomem.CodeNoStepModifier {
				t.Fatalf("modifier %s, streaming=%v: %v is not a *core.Error with CodeNoStepModifier", mod, streaming, err)
			}
			if cm.calls != 1 {
				t.Fatalf("modifier %s, streaming=%v: the model was called %d times", mod, streaming, cm.calls)
			}
			if n := len(stored(t, mem, "bare-loop")); n != history {
				t.Fatalf("modifier %s, streaming=%v: %d messages stored, want the %d of the history", mod, streaming, n, history)
			}
		}
	}
}

// failingStep is a StepProcessor whose every step fails.
type failingStep struct{}

var errStepProcessor = errors.New("step processor failed")

func (failingStep) ProcessInput(_ context.Context, in core.ProcessorInput) ([]core.Message, error) {
	return in.Messages, nil
}

func (failingStep) ProcessInputStep(context.Context, core.ProcessorInput) ([]core.Message, error) {
	return nil, errStepProcessor
}

// A model call whose step cannot be fitted stops the run: the call gets an
// ended context, so a model client sends nothing over the budget, no later
// call follows, and the run fails with the step's error, having saved only
// the input (a step saves what the loop holds before it prepares the call).
func TestReactStepFailureStopsRun(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "memory.db"))
		must(t, err)
		t.Cleanup(func() { s.Close() })
		tk := tokenizer.Default()
		mem, err := core.New(core.Options{Store: s, Tokenizer: tk, Processors: []core.Processor{failingStep{}},
			Config: core.Config{MessageHistory: &core.MessageHistory{MaxTokens: loopBudget}}})
		must(t, err)
		cm := loopModel(t, tk)
		ra, err := einomem.New(mem, einomem.Options{}).NewReact(ctx, &react.AgentConfig{ToolCallingModel: cm,
			ToolsConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{longReportTool{tk}}}, MaxStep: 4*loopSteps + 10})
		must(t, err)
		if err := runLoop(ra, "failing-step", streaming); !errors.Is(err, errStepProcessor) {
			t.Fatalf("streaming=%v: got %v, want the step processor's error", streaming, err)
		}
		if cm.calls != 0 {
			t.Fatalf("streaming=%v: the model took %d calls", streaming, cm.calls)
		}
		if got := stored(t, mem, "failing-step"); len(got) != 1 || got[0].Role != core.RoleUser {
			t.Fatalf("streaming=%v: stored %+v, want the input alone", streaming, got)
		}
	}
}
