package postgres

import (
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentmem/agentmem/core/memerr"
)

// TestTableClashNamesSchemaOption: in a schema that already holds a table
// of the application's with one of agentmem's (prefixed) names, Open fails
// with an invalid-config error that points at WithSchema and --pg-schema,
// and the application's table is left as it was.
func TestTableClashNamesSchemaOption(t *testing.T) {
	schema := freshSchema(t)
	pool, err := pgxpool.New(bg(), testDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	q := quoteIdent(schema)
	if _, err := pool.Exec(bg(), "CREATE SCHEMA "+q+"; CREATE TABLE "+q+".agentmem_messages (body text); INSERT INTO "+q+".agentmem_messages VALUES ('app row')"); err != nil {
		t.Fatal(err)
	}
	_, err = Open(bg(), testDSN(t), WithSchema(schema))
	if !errors.Is(err, memerr.ErrInvalidConfig) || !strings.Contains(err.Error(), "WithSchema") || !strings.Contains(err.Error(), "--pg-schema") {
		t.Fatalf("Open over the application's messages table: %v", err)
	}
	var body string
	if err := pool.QueryRow(bg(), "SELECT body FROM "+q+".agentmem_messages").Scan(&body); err != nil || body != "app row" {
		t.Errorf("the application's table changed: %q, %v", body, err)
	}
}
