package eino_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/agentmem/agentmem/core"
	einomem "github.com/agentmem/agentmem/eino"
)

// memoryEvents records the memory steps eino's callbacks report.
type memoryEvents struct {
	mu        sync.Mutex
	events    []string
	inputs    []*einomem.CallbackInput
	prompt    []*schema.Message
	committed []*schema.Message
}

func (e *memoryEvents) handler() callbacks.Handler {
	add := func(info *callbacks.RunInfo, what string) {
		if info.Component != einomem.ComponentOfMemory || info.Type != einomem.CallbackType {
			return
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		e.events = append(e.events, info.Name+" "+what)
	}
	return callbacks.NewHandlerBuilder().
		OnStartFn(func(ctx context.Context, info *callbacks.RunInfo, in callbacks.CallbackInput) context.Context {
			add(info, "start")
			if ci, ok := in.(*einomem.CallbackInput); ok {
				e.inputs = append(e.inputs, ci)
			}
			return ctx
		}).
		OnEndFn(func(ctx context.Context, info *callbacks.RunInfo, out callbacks.CallbackOutput) context.Context {
			add(info, "end")
			if co, ok := out.(*einomem.CallbackOutput); ok {
				switch info.Name {
				case "Begin":
					e.prompt = co.Messages
				case "Commit":
					e.committed = co.Messages
				}
			}
			return ctx
		}).
		OnErrorFn(func(ctx context.Context, info *callbacks.RunInfo, err error) context.Context {
			add(info, "error")
			return ctx
		}).Build()
}

// TestMemoryStepsReportThroughCallbacks: a graph run's handlers see Begin
// and Commit as Memory components, with the thread and the prompt.
func TestMemoryStepsReportThroughCallbacks(t *testing.T) {
	cm := &scripted{t: t, reply: func(int, []*schema.Message) *schema.Message { return schema.AssistantMessage("Hello.", nil) }}
	em := einomem.New(newMemory(t, nil, core.Config{}), einomem.Options{System: []string{"Be brief."}})
	run := memoryGraph(t, em, cm)
	ev := &memoryEvents{}
	if _, err := run.Invoke(einomem.WithThread(ctx, "th", "res"), []*schema.Message{schema.UserMessage("Hi")},
		compose.WithCallbacks(ev.handler())); err != nil {
		t.Fatal(err)
	}
	if want := []string{"Begin start", "Begin end", "Commit start", "Commit end"}; !slices.Equal(ev.events, want) {
		t.Fatalf("memory events %v, want %v", ev.events, want)
	}
	if in := ev.inputs[0]; in.ThreadID != "th" || in.ResourceID != "res" || len(in.Messages) != 1 {
		t.Fatalf("Begin input %+v", in)
	}
	if len(ev.prompt) != 2 || ev.prompt[0].Role != schema.System {
		t.Fatalf("Begin output %v, want the system message and the input", ev.prompt)
	}
	if len(ev.committed) != 1 || ev.committed[0].Content != "Hello." {
		t.Fatalf("Commit output %v, want the model's reply", ev.committed)
	}
}
