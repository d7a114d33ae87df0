package postgres_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
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
	db, err := postgres.Open(ctx, dsn, postgres.WithSchema("agentmem"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	now := time.Now().UTC().Truncate(time.Microsecond)
	if _, err := db.SaveThread(ctx, store.Thread{ID: "thread-1", ResourceID: "user-1", Title: "Hello", CreatedAt: now, UpdatedAt: now}); err != nil {
		log.Fatal(err)
	}
	q := message.NewMessage(message.RoleUser, "What is the capital of France?")
	q.ID, q.ThreadID, q.ResourceID, q.CreatedAt = "m1", "thread-1", "user-1", now
	a := message.NewMessage(message.RoleAssistant, "Paris.")
	a.ID, a.ThreadID, a.ResourceID, a.CreatedAt = "m2", "thread-1", "user-1", now.Add(time.Second)
	if _, err := db.SaveMessages(ctx, []message.Message{q, a}); err != nil {
		log.Fatal(err)
	}

	page, err := db.ListMessages(ctx, store.MessageQuery{ThreadID: "thread-1", PerPage: 10, Direction: store.Desc})
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range page.Messages {
		fmt.Println(m.Role, m.Text())
	}
}
