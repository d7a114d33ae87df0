package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/internal/testenv"

	"github.com/jackc/pgx/v5"
)

// The quickstart on PostgreSQL with pgvector (-pg) plays the same
// conversation, recalls the DHL answer, continues on a second run and starts
// over with -fresh.
func TestQuickstartPostgres(t *testing.T) {
	dsn := testenv.Postgres(t)
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	db := fmt.Sprintf("quickstart_%d", rand.Uint32())
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+db); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)") })
	cfg := admin.Config()
	pg := fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", cfg.User, cfg.Host, cfg.Port, db)

	var out bytes.Buffer
	prompts, err := runPostgres(ctx, pg, false, &out)
	if err != nil {
		t.Fatal(err)
	}
	if len(prompts) != 4 || !hasDHL(prompts[3], core.SourceMemory) {
		t.Fatalf("turn 4's prompt has no DHL message:\n%s", out.String())
	}
	out.Reset()
	if prompts, err = runPostgres(ctx, pg, false, &out); err != nil {
		t.Fatal(err)
	}
	if !hasDHL(prompts[0], core.SourceRecall) {
		t.Errorf("second run's first turn recalls no DHL message:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "9 messages from earlier runs") {
		t.Errorf("second run does not continue the thread:\n%s", out.String())
	}
	out.Reset()
	if _, err := runPostgres(ctx, pg, true, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "new thread") {
		t.Errorf("-fresh does not start over:\n%s", out.String())
	}
}
