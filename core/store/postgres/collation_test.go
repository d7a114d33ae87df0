package postgres

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/storetest"
	"github.com/agentmem/agentmem/internal/testenv"
)

// TestLinguisticCollation runs the conformance suite and the query-plan
// checks in a database whose default collation is ICU's en-US, not "C": most
// installs have a linguistic default (initdb takes the system's locale).
// Ids must still compare as bytes (ListThreadsTieOrder), and every statement
// must still find its index when the id columns and the parameters have
// different collations. scripts/lib/pg.sh's cluster defaults to en-US as
// well; this test makes the case whatever server AGENTMEM_PG_DSN names.
func TestLinguisticCollation(t *testing.T) {
	dsn := collatedDatabase(t)
	open := func(t *testing.T) *Store {
		s, err := Open(bg(), dsn, WithSchema(randomName("agentmem_test_")))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	t.Run("conformance", func(t *testing.T) {
		storetest.Run(t, func(t *testing.T) store.Store { return open(t) })
	})
	t.Run("plans", func(t *testing.T) { checkQueryPlans(t, open(t)) })
}

// collatedDatabase creates a database with ICU's en-US as its default
// collation on the test server and returns its DSN; the database is dropped
// when the test ends (with the schemas in it).
func collatedDatabase(t *testing.T) string {
	t.Helper()
	return createDatabase(t, "agentmem_icu_", "ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C'",
		"it needs PostgreSQL 15 built with ICU, and CREATEDB")
}

// createDatabase creates a database from template0 with the given options
// on the test server and returns its DSN; the database is dropped when the
// test ends. needs says what a server that cannot create it lacks.
func createDatabase(t *testing.T, prefix, options, needs string) string {
	t.Helper()
	dsn := testDSN(t)
	name := randomName(prefix)
	admin := func(sql string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, sql)
		return err
	}
	if err := admin("CREATE DATABASE " + quoteIdent(name) + " TEMPLATE template0 " + options); err != nil {
		// As for a missing server (testDSN): scripts/test's server can.
		testenv.Unavailable(t, "the server cannot create a database (%s; %s): %v", options, needs, err)
	}
	t.Cleanup(func() {
		if err := admin("DROP DATABASE " + quoteIdent(name) + " WITH (FORCE)"); err != nil {
			t.Logf("drop database %s: %v", name, err)
		}
	})
	return withDatabase(t, dsn, name)
}

// withDatabase returns dsn (a URL or keyword/value string) naming database
// name instead of its own.
func withDatabase(t *testing.T, dsn, name string) string {
	t.Helper()
	if !strings.HasPrefix(dsn, "postgres://") && !strings.HasPrefix(dsn, "postgresql://") {
		return dsn + " dbname=" + name // a later keyword overrides an earlier one
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}
