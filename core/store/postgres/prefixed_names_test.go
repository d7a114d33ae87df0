package postgres

import (
	"slices"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// legacyNames are the tables (and the version table) of the versions before
// prefixedVersion.
var legacyNames = []string{"threads", "messages", "resources", "observations", "observation_generations", "unindexed", legacyVersionTable}

// TestLegacySchemaRenamed: a schema as the last version with unprefixed
// names left it, holding rows in every table, is opened by this version:
// its tables, indexes, constraints, sequence and functions carry the
// prefixed names exactly as a new schema's do, its rows read and write as
// before (seq continues, the unindexed marker goes with its message), and a
// second Open changes nothing.
func TestLegacySchemaRenamed(t *testing.T) {
	schema, pool := oldSchema(t, prefixedVersion,
		`INSERT INTO {{schema}}.threads (id, resource_id, title, created_at, updated_at, working_memory, wm_version) VALUES ('t', 'r', 'old', now(), now(), 'thread wm', 1)`,
		`INSERT INTO {{schema}}.messages (id, thread_id, resource_id, role, content, created_at) VALUES
			('m1', 't', 'r', 'user', '{"format": 2, "parts": [{"type": "text", "text": "one"}]}', now() - interval '2 minutes'),
			('m2', 't', 'r', 'assistant', '{"format": 2, "parts": [{"type": "text", "text": "two"}]}', now() - interval '1 minute')`,
		`INSERT INTO {{schema}}.resources (id, working_memory, wm_version, created_at, updated_at) VALUES ('r', 'resource wm', 1, now(), now())`,
		`INSERT INTO {{schema}}.observations (key, observations, version, updated_at) VALUES ('thread:t', 'current', 2, now())`,
		`INSERT INTO {{schema}}.observation_generations (key, generation, observations, observation_tokens, version, updated_at, archived_at)
			VALUES ('thread:t', 0, 'archived', 1, 1, now(), now())`,
		`INSERT INTO {{schema}}.unindexed (message_id, marked_at) VALUES ('m2', now())`)
	s := openSchema(t, schema)
	for _, name := range legacyNames {
		var gone bool
		if err := pool.QueryRow(bg(), "SELECT to_regclass($1) IS NULL", quoteIdent(schema)+"."+name).Scan(&gone); err != nil || !gone {
			t.Errorf("table %s after migrating: still there (%v)", name, err)
		}
	}
	renamed := catalog(t, pool, schema)
	if fresh := openFresh(t); !slices.Equal(renamed, catalog(t, pool, fresh.schema)) {
		t.Fatalf("renamed schema differs from a new one:\n%q\nnew:\n%q", renamed, catalog(t, pool, fresh.schema))
	}
	checkLegacyRows(t, s)
	applied := versions(t, pool, schema)
	openSchema(t, schema)
	if again := catalog(t, pool, schema); !slices.Equal(renamed, again) || !slices.Equal(applied, versions(t, pool, schema)) {
		t.Fatalf("second Open changed the schema:\n%q\nthen:\n%q", renamed, again)
	}
	if err := s.DeleteThread(bg(), "t"); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := pool.QueryRow(bg(), "SELECT (SELECT count(*) FROM "+s.q.messages+") + (SELECT count(*) FROM "+quoteIdent(schema)+".agentmem_unindexed)").
		Scan(&left); err != nil || left != 0 {
		t.Fatalf("rows left after DeleteThread: %d %v", left, err)
	}
}

// checkLegacyRows reads the rows TestLegacySchemaRenamed wrote before the
// rename and writes after them.
func checkLegacyRows(t *testing.T, s *Store) {
	t.Helper()
	th, err := s.GetThread(bg(), "t")
	if err != nil || th.Title != "old" {
		t.Fatalf("GetThread: %+v %v", th, err)
	}
	wm, err := s.GetWorkingMemory(bg(), store.ScopeResource, "r")
	if err != nil || wm.Data != "resource wm" {
		t.Fatalf("resource working memory: %+v %v", wm, err)
	}
	obs, err := s.GetObservations(bg(), "thread:t")
	gens, gerr := s.ListObservationGenerations(bg(), "thread:t")
	if err != nil || gerr != nil || obs.Observations != "current" || len(gens) != 1 || gens[0].Observations != "archived" {
		t.Fatalf("observations: %+v %v; generations %+v %v", obs, err, gens, gerr)
	}
	pending, err := s.ListUnindexed(bg(), "r", 10)
	if err != nil || len(pending) != 1 || pending[0].ID != "m2" {
		t.Fatalf("ListUnindexed: %+v %v", pending, err)
	}
	old, err := s.GetMessages(bg(), []string{"m1", "m2"})
	if err != nil || len(old) != 2 || old[1].Text() != "two" {
		t.Fatalf("GetMessages: %+v %v", old, err)
	}
	m3 := message.NewMessage(message.RoleUser, "three")
	m3.ID, m3.ThreadID, m3.ResourceID = "m3", "t", "r"
	saved, err := s.SaveMessages(bg(), []message.Message{m3})
	if err != nil || saved[0].Seq <= max(old[0].Seq, old[1].Seq) {
		t.Fatalf("SaveMessages after the rename: %+v %v (stored seqs %d, %d)", saved, err, old[0].Seq, old[1].Seq)
	}
}

// TestApplicationTablesUntouched: a schema holding the application's own
// messages, threads, resources and schema_migrations (with agentmem's
// columns, but the application's migrations) gets agentmem's prefixed
// tables beside them; the application's tables keep their rows, agentmem
// reads and writes its own, and a second Open changes nothing.
func TestApplicationTablesUntouched(t *testing.T) {
	schema := freshSchema(t)
	pool, err := pgxpool.New(bg(), testDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	q := quoteIdent(schema)
	app := "CREATE SCHEMA " + q + ";" +
		"CREATE TABLE " + q + ".messages (body text); INSERT INTO " + q + ".messages VALUES ('app row');" +
		"CREATE TABLE " + q + ".threads (id int PRIMARY KEY); CREATE TABLE " + q + ".resources (id int);" +
		"CREATE TABLE " + q + ".schema_migrations (version bigint PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());" +
		"INSERT INTO " + q + ".schema_migrations (version, name) VALUES (1, '20240101_users')"
	if _, err := pool.Exec(bg(), app); err != nil {
		t.Fatal(err)
	}
	before := catalog(t, pool, schema)
	s := openSchema(t, schema)
	m := message.NewMessage(message.RoleUser, "hello")
	m.ID, m.ThreadID, m.ResourceID = "m", "t", "r"
	if _, err := s.SaveThread(bg(), store.Thread{ID: "t", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveMessages(bg(), []message.Message{m}); err != nil {
		t.Fatal(err)
	}
	after := catalog(t, pool, schema)
	for _, line := range before {
		if !slices.Contains(after, line) {
			t.Errorf("the application's %q changed", line)
		}
	}
	var body, name string
	err = pool.QueryRow(bg(), "SELECT (SELECT body FROM "+q+".messages), (SELECT string_agg(name, ',') FROM "+q+".schema_migrations)").Scan(&body, &name)
	if err != nil || body != "app row" || name != "20240101_users" {
		t.Errorf("the application's rows: %q, %q, %v", body, name, err)
	}
	applied := versions(t, pool, schema)
	openSchema(t, schema)
	if !slices.Equal(after, catalog(t, pool, schema)) || !slices.Equal(applied, versions(t, pool, schema)) {
		t.Errorf("second Open changed the schema")
	}
}

// catalog describes schema's relations, columns, constraints, indexes and
// functions (bodies by hash), with the schema's name replaced by S.
func catalog(t *testing.T, pool *pgxpool.Pool, schema string) []string {
	t.Helper()
	var lines []string
	err := pool.QueryRow(bg(), `SELECT array_agg(x ORDER BY x) FROM (
	SELECT 'rel ' || c.relname || ' ' || c.relkind::text || ' ' || coalesce(array_to_string(c.reloptions, ','), '')
	FROM pg_class c WHERE c.relnamespace = $1::regnamespace
	UNION ALL
	SELECT 'col ' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || coalesce(co.collname, '') ||
		' ' || a.attnotnull::text || ' ' || a.attidentity::text || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
	FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
	LEFT JOIN pg_collation co ON co.oid = a.attcollation AND a.attcollation <> 0
	LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
	WHERE c.relnamespace = $1::regnamespace AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
	UNION ALL
	SELECT 'con ' || conname || ' ' || replace(pg_get_constraintdef(oid), $2, 'S') FROM pg_constraint WHERE connamespace = $1::regnamespace
	UNION ALL
	SELECT 'idx ' || replace(pg_get_indexdef(i.indexrelid), $2, 'S') FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
	WHERE c.relnamespace = $1::regnamespace
	UNION ALL
	SELECT 'fn ' || proname || '(' || pg_get_function_identity_arguments(oid) || ') ' || md5(replace(prosrc, $2, 'S')) ||
		' ' || coalesce(array_to_string(proconfig, ','), '')
	FROM pg_proc WHERE pronamespace = $1::regnamespace
) AS t(x)`, quoteIdent(schema), schema).Scan(&lines)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// versions lists the migrations recorded in schema, with when they ran.
func versions(t *testing.T, pool *pgxpool.Pool, schema string) []string {
	t.Helper()
	var out []string
	err := pool.QueryRow(bg(), "SELECT array_agg(version || ' ' || name || ' ' || applied_at ORDER BY version) FROM "+quoteIdent(schema)+"."+versionTable).Scan(&out)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
