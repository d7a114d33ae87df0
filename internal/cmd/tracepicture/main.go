// Command tracepicture runs one agent turn with memory under the
// OpenTelemetry SDK's in-memory span recorder and draws its trace as an SVG
// waterfall: the picture of docs/observability.md.
//
//	go run ./internal/cmd/tracepicture -o docs/trace-turn.svg
//
// The turn is the one the telemetry tests assert (core/telemetry_test.go):
// on SQLite with the local vector store and hash embedder, a first turn
// indexes a thread, then, under the application's span "agent", a turn
// with semantic recall, a call of the recall tool, a Step and a Commit
// whose observation runs in the background, in a trace of its own linked
// to the Commit. The observer is a stand-in that answers at once, so its
// span is short here; with a real model it is the longest of all.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/agentmem/agentmem/core/message"
	"log"
	"os"
	"path/filepath"
	"slices"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/sqlite"
	"github.com/agentmem/agentmem/core/vector/local"
)

func main() {
	out := flag.String("o", "trace-turn.svg", "the SVG file to write")
	flag.Parse()
	spans, err := record(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	svg, err := waterfall(spans)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, svg, 0o644); err != nil {
		log.Fatal(err)
	}
}

// standIn is the observer: a model that answers at once with one
// observation line, named as a core.NamedModel.
type standIn struct{}

func (standIn) Generate(context.Context, string, string) (string, error) {
	return "- [2026-12-07] (medium) The user asked which carrier ships the parcel; it goes by DHL.", nil
}

func (standIn) ModelName() string { return "stand-in" }

// runs is how many traced turns the picture is chosen from.
const runs = 9

// record runs the turns and returns the spans of the chosen turn's trace
// and of the background traces linked to it.
func record(ctx context.Context) ([]sdktrace.ReadOnlySpan, error) {
	dir, err := os.MkdirTemp("", "tracepicture")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	s, err := sqlite.Open(ctx, filepath.Join(dir, "memory.db"))
	if err != nil {
		return nil, err
	}
	defer s.Close()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	cfg := core.Config{
		SemanticRecall: &core.SemanticRecall{TopK: 2, Retrieval: &core.Retrieval{}},
		ObservationalMemory: &core.ObservationalMemoryConfig{ObserverModel: standIn{}, ReflectorModel: standIn{}, Background: true,
			Observation: core.ObservationConfig{MessageTokens: 20}, Reflection: core.ReflectionConfig{ObservationTokens: 100000}},
	}
	mem, err := core.New(core.Options{Store: s, Vector: local.New(), Embedder: local.NewHashEmbedder(64), Config: cfg, TracerProvider: tp})
	if err != nil {
		return nil, err
	}
	// The scenario runs on several threads; the first warms the process
	// up (the store's statements, the vector index) as in a running
	// service, and the picture is the shortest trace among the others: on
	// a busy machine other processes stretch any single run by waits for
	// the CPU that are no part of the turn.
	var agents []sdktrace.ReadOnlySpan
	for i := range runs + 1 {
		thread := fmt.Sprint("t", i)
		if err := firstTurn(ctx, mem, thread); err != nil {
			return nil, err
		}
		if err := mem.Close(ctx); err != nil { // waits for the background work
			return nil, err
		}
		actx, agent := tp.Tracer("app").Start(ctx, "agent")
		if err := toolTurn(actx, mem, thread); err != nil {
			return nil, err
		}
		agent.End()
		if err := mem.Close(ctx); err != nil {
			return nil, err
		}
		if i > 0 {
			agents = append(agents, agent.(sdktrace.ReadOnlySpan))
		}
	}
	slices.SortFunc(agents, func(a, b sdktrace.ReadOnlySpan) int {
		return cmp.Compare(a.EndTime().Sub(a.StartTime()), b.EndTime().Sub(b.StartTime()))
	})
	return traceOf(rec.Ended(), agents[0].SpanContext().TraceID()), nil
}

// traceOf returns the spans of trace id and of the traces whose roots are
// linked to it (background work it scheduled).
func traceOf(spans []sdktrace.ReadOnlySpan, id trace.TraceID) []sdktrace.ReadOnlySpan {
	traces := map[trace.TraceID]bool{id: true}
	for _, s := range spans {
		for _, l := range s.Links() {
			if l.SpanContext.TraceID() == id && !s.Parent().IsValid() {
				traces[s.SpanContext().TraceID()] = true
			}
		}
	}
	var out []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if traces[s.SpanContext().TraceID()] {
			out = append(out, s)
		}
	}
	return out
}

// firstTurn gives the thread a question to recall.
func firstTurn(ctx context.Context, mem *core.Memory, thread string) error {
	turn, err := mem.Begin(ctx, core.TurnRequest{ThreadID: thread, ResourceID: "r",
		Input: []message.Message{core.NewMessage(message.RoleUser, "Which carrier ships my parcel?")}})
	if err != nil {
		return err
	}
	return turn.Commit(ctx, []message.Message{core.NewMessage(message.RoleAssistant, "It goes by DHL.")})
}

// toolTurn is a turn whose model calls the recall tool once, then answers.
func toolTurn(ctx context.Context, mem *core.Memory, thread string) error {
	turn, err := mem.Begin(ctx, core.TurnRequest{ThreadID: thread, ResourceID: "r",
		Input: []message.Message{core.NewMessage(message.RoleUser, "Remind me: who ships the parcel?")}})
	if err != nil {
		return err
	}
	var recall *core.Tool
	for i, tl := range turn.Tools() {
		if tl.Name == core.RecallToolName {
			recall = &turn.Tools()[i]
		}
	}
	if recall == nil {
		return fmt.Errorf("no %s tool", core.RecallToolName)
	}
	args := json.RawMessage(`{"query":"parcel carrier"}`)
	res, err := recall.Call(ctx, args)
	if err != nil {
		return err
	}
	call := core.ToolCall("c1", core.RecallToolName, args)
	result, _ := core.ToolResult(call, res)
	if _, err := turn.Step(ctx, []message.Message{call, result}); err != nil {
		return err
	}
	return turn.Commit(ctx, []message.Message{call, result, core.NewMessage(message.RoleAssistant, "DHL ships it.")})
}
