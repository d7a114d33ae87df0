package postgres_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/postgres"
)

// Example opens a store in its own schema, saves a thread with two messages
// and reads the newest page of history back.
func Example() {
	ctx := context.Background()
	dsn := os.Getenv("AGENTMEM_PG_DSN") // e.g. postgres://user@host:5432/db?sslmode=disable
	if dsn == "" {
		return
	}
	store, err := postgres.Open(ctx, dsn, postgres.WithSchema("agentmem"))
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()

	now := time.Now().UTC().Truncate(time.Microsecond)
	if _, err := store.SaveThread(ctx, core.Thread{ID: "thread-1", ResourceID: "user-1", Title: "Hello", CreatedAt: now, UpdatedAt: now}); err != nil {
		log.Fatal(err)
	}
	q := core.NewMessage(core.RoleUser, "What is the capital of France?")
	q.ID, q.ThreadID, q.ResourceID, q.CreatedAt = "m1", "thread-1", "user-1", now
	a := core.NewMessage(core.RoleAssistant, "Paris.")
	a.ID, a.ThreadID, a.ResourceID, a.CreatedAt = "m2", "thread-1", "user-1", now.Add(time.Second)
	if _, err := store.SaveMessages(ctx, []core.Message{q, a}); err != nil {
		log.Fatal(err)
	}

	page, err := store.ListMessages(ctx, core.MessageQuery{ThreadID: "thread-1", PerPage: 10, Direction: core.Desc})
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range page.Messages {
		fmt.Println(m.Role, m.Text())
	}
}
