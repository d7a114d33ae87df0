package langchaingo_test

import (
	"context"
	"testing"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/callbacks"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/prompts"
	"github.com/tmc/langchaingo/schema"
	"github.com/tmc/langchaingo/tools"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
	lcmem "github.com/agentmem/agentmem/langchaingo"
)

// retrieverEvents records the retriever callbacks memory makes.
type retrieverEvents struct {
	callbacks.SimpleHandler
	starts []string
	ends   [][]schema.Document
}

func (r *retrieverEvents) HandleRetrieverStart(_ context.Context, query string) {
	r.starts = append(r.starts, query)
}

func (r *retrieverEvents) HandleRetrieverEnd(_ context.Context, _ string, docs []schema.Document) {
	r.ends = append(r.ends, docs)
}

// TestMemoryLoadsReportToCallbacksHandler: the executor's memory load and
// each step StepAgent fits reach the handler as retrievals of the input.
func TestMemoryLoadsReportToCallbacksHandler(t *testing.T) {
	mem, err := core.New(core.Options{Store: memstore.New()})
	if err != nil {
		t.Fatal(err)
	}
	rec := &retrieverEvents{}
	buf := lcmem.NewConversationTokenBuffer(nil, 1500, lcmem.WithMemory(mem), lcmem.WithThread("pages", "ada"),
		lcmem.WithReturnMessagesAsJSON(), lcmem.WithOutputKey("output"), lcmem.WithCallbacksHandler(rec))
	agent := agents.NewOpenAIFunctionsAgent(&pageLLM{}, []tools.Tool{pages{}}, agents.NewOpenAIOption().WithExtraMessages(
		[]prompts.MessageFormatter{lcmem.HistoryPlaceholder{}}))
	exec := agents.NewExecutor(lcmem.StepAgent(agent, buf), agents.WithMemory(buf))
	if _, err := chains.Run(context.Background(), exec, "Read three pages."); err != nil {
		t.Fatal(err)
	}
	// One load by the executor, then one fitted step per model call after a tool result.
	if len(rec.starts) != 4 || len(rec.ends) != 4 {
		t.Fatalf("%d retriever starts, %d ends; want 4 each", len(rec.starts), len(rec.ends))
	}
	for _, q := range rec.starts {
		if q != "Read three pages." {
			t.Fatalf("retrieval query %q", q)
		}
	}
	last := rec.ends[3]
	if len(last) == 0 || last[len(last)-1].Metadata["source"] != string(core.SourceResponse) {
		t.Fatalf("the last step's documents %v do not end with the loop's messages", last)
	}
}
