// Command quickstart shows agentmem's main job on the embedded defaults: a
// SQLite database (./memory.db) and a local vector index beside it
// (./memory.vectors). It runs a short support conversation (including a tool
// call) through Begin/Commit and prints what a model would see each turn;
// history is marked "memory", older messages semantic recall brings back
// "recall". A second run continues the same thread (recalling from the
// first) and says so; -fresh starts over. It needs no
// network and finishes in seconds.
//
// With -pg (or $DATABASE_URL) it runs on PostgreSQL instead: messages and
// their vectors in one database (core/store/postgres and core/vector/pgvector
// on one pool; the server needs the pgvector extension).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/postgres"
	"github.com/agentmem/agentmem/core/store/sqlite"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/pgvector"
)

func main() {
	dir := flag.String("dir", ".", "directory of memory.db and memory.vectors")
	pg := flag.String("pg", os.Getenv("DATABASE_URL"), "PostgreSQL connection string (default $DATABASE_URL): messages and vectors (pgvector) there instead of in -dir")
	fresh := flag.Bool("fresh", false, "delete the stored memory and start over")
	flag.Parse()
	var err error
	if *pg != "" {
		_, err = runPostgres(context.Background(), *pg, *fresh, os.Stdout)
	} else {
		_, err = run(context.Background(), *dir, *fresh, os.Stdout)
	}
	if err != nil {
		log.Fatal(err)
	}
}

// The conversation's thread and resource: fixed, so a second run finds them.
const (
	threadID   = "order-support"
	resourceID = "user-456"
)

// run plays the conversation over the memory in dir and returns the prompt of
// every turn.
func run(ctx context.Context, dir string, fresh bool, out io.Writer) ([][]core.Message, error) {
	dbPath, vecPath := filepath.Join(dir, "memory.db"), filepath.Join(dir, "memory.vectors")
	if fresh {
		for _, p := range []string{dbPath, dbPath + "-wal", dbPath + "-shm", vecPath} {
			if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, err
			}
		}
	}
	db, err := sqlite.Open(ctx, dbPath)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	vectors, err := local.Open(vecPath)
	if err != nil {
		return nil, err
	}
	defer vectors.Close()
	return play(ctx, db, vectors, dbPath, false, out)
}

// runPostgres is run on PostgreSQL: the message store and pgvector share
// the pool of dsn; fresh deletes the conversation's thread (messages and
// vectors).
func runPostgres(ctx context.Context, dsn string, fresh bool, out io.Writer) ([][]core.Message, error) {
	db, err := postgres.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	vectors, err := pgvector.New(ctx, db.Pool(), pgvector.Config{})
	if err != nil {
		return nil, err
	}
	return play(ctx, db, vectors, "PostgreSQL", fresh, out)
}

// play runs the conversation on a message store and a vector store; dbPath
// names the storage in the output; fresh deletes the thread first.
func play(ctx context.Context, db store.Store, vectors vector.Store, dbPath string, fresh bool, out io.Writer) ([][]core.Message, error) {
	mem, err := core.New(core.Options{
		Store:    db,
		Vector:   vectors,
		Embedder: local.NewHashEmbedder(384), // offline stand-in for a real embedding model
		Config: core.Config{
			MessageHistory: &core.MessageHistory{MaxTokens: 300},
			SemanticRecall: &core.SemanticRecall{TopK: 2, MessageRange: &core.MessageRange{Before: 0, After: 1}},
		},
	})
	if err != nil {
		return nil, err
	}
	if fresh {
		if err := mem.DeleteThread(ctx, threadID); err != nil {
			return nil, err
		}
	}
	if err := announce(ctx, mem, dbPath, out); err != nil {
		return nil, err
	}
	var prompts [][]core.Message
	for i, turn := range conversation() {
		t, err := mem.Begin(ctx, core.TurnRequest{ThreadID: threadID, ResourceID: resourceID,
			System: []string{"You are a friendly support agent."},
			Input:  []core.Message{core.NewMessage(core.RoleUser, turn.user)}})
		if err != nil {
			return nil, err
		}
		prompt := t.Messages()
		prompts = append(prompts, prompt)
		fmt.Fprintf(out, "--- turn %d: the model sees %d messages, %d tokens (budget 300)\n", i+1, len(prompt), budget.PromptTokens(prompt))
		for _, m := range prompt {
			fmt.Fprintf(out, "  [%-8s %-9s] %s\n", m.Source, m.Role, summary(m))
		}
		if err := t.Commit(ctx, turn.answer); err != nil {
			return nil, err
		}
	}
	all, err := mem.Recall(ctx, core.RecallQuery{ThreadID: threadID, ResourceID: resourceID, PerPage: store.PerPageAll})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "--- %s keeps all %d messages; the token budget only moved the thread's boundary\n", dbPath, len(all.Messages))
	fmt.Fprintln(out, "--- run again to continue this thread, or with -fresh to start over")
	return prompts, nil
}

// announce says whether this run continues a stored thread or starts one.
func announce(ctx context.Context, mem *core.Memory, dbPath string, out io.Writer) error {
	stored, err := mem.Recall(ctx, core.RecallQuery{ThreadID: threadID, ResourceID: resourceID, PerPage: store.PerPageAll})
	switch {
	case errors.Is(err, core.ErrThreadNotFound):
		fmt.Fprintf(out, "--- new thread %q in %s\n", threadID, dbPath)
		_, err = mem.CreateThread(ctx, core.ThreadInput{ID: threadID, ResourceID: resourceID, Title: "Order support"})
		return err
	case err != nil:
		return err
	}
	fmt.Fprintf(out, "--- continuing thread %q from %s: %d messages from earlier runs\n", threadID, dbPath, len(stored.Messages))
	return nil
}

type turn struct {
	user   string
	answer []core.Message
}

func conversation() []turn {
	return []turn{
		{"Hi! My order A-1 has not arrived. Where is it?", []core.Message{toolCall("call-1", "lookupOrder", `{"orderId":"A-1"}`, `{"eta":"2026-10-30","carrier":"DHL"}`),
			core.NewMessage(core.RoleAssistant, "Order A-1 ships with DHL and arrives on 2026-10-30.")}},
		{"Great. By the way, I am allergic to peanuts, please remember that for gift baskets.", reply("Noted: no peanuts in gift baskets.")},
		{"Can you tell me a long story about shipping containers?", reply(story())},
		{"What carrier was my order using again?", reply("Your order A-1 is with DHL.")},
	}
}

func reply(text string) []core.Message {
	return []core.Message{core.NewMessage(core.RoleAssistant, text)}
}

func toolCall(id, name, args, result string) core.Message {
	return core.Message{Role: core.RoleAssistant, Content: core.Content{Parts: []core.Part{{Type: core.PartToolInvocation,
		ToolInvocation: &message.ToolInvocation{State: message.ToolStateResult, ToolCallID: id, ToolName: name,
			Args: json.RawMessage(args), Result: json.RawMessage(result)}}}}}
}

func story() string {
	s := "Once upon a time, a shipping container crossed the ocean."
	for i := 0; i < 12; i++ {
		s += " It carried toys, books and machines from port to port, and every sailor knew its number."
	}
	return s
}

func summary(m core.Message) string {
	var out string
	for _, p := range m.Content.Parts {
		switch {
		case p.ToolInvocation != nil:
			out += fmt.Sprintf("[tool %s(%s) -> %s] ", p.ToolInvocation.ToolName, p.ToolInvocation.Args, p.ToolInvocation.Result)
		case p.Type == core.PartText:
			out += p.Text
		}
	}
	if len(out) > 90 {
		out = out[:87] + "..."
	}
	return out
}
