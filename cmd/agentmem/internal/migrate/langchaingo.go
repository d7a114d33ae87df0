package migrate

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx" for PostgreSQL sources
	_ "modernc.org/sqlite"             // database/sql driver "sqlite" for SQLite and LibSQL sources

	"github.com/agentmem/agentmem/cmd/agentmem/internal/clierr"
	"github.com/agentmem/agentmem/cmd/agentmem/internal/export"
	"github.com/agentmem/agentmem/cmd/agentmem/internal/importer"
	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/memerr"
	lcmem "github.com/agentmem/agentmem/langchaingo"
)

// openSourceDB opens a migration source read-only: a postgres:// DSN, or a
// SQLite/LibSQL file that must exist.
func openSourceDB(arg string) (*sql.DB, bool, error) {
	if IsPostgres(arg) {
		db, err := sql.Open("pgx", arg)
		return db, true, err
	}
	if _, err := os.Stat(arg); err != nil {
		return nil, false, clierr.Usage("%v", err)
	}
	db, err := sql.Open("sqlite", sourceDSN(arg))
	return db, false, err
}

// sourceDSN opens a SQLite source read-only. Without a write-ahead log beside
// it the file is also opened immutable, so that reading it creates no -wal or
// -shm file; with one, SQLite must read the log to see the latest rows.
func sourceDSN(path string) string {
	u := url.URL{Scheme: "file", Opaque: (&url.URL{Path: path}).EscapedPath()}
	q := url.Values{"mode": {"ro"}}
	if _, err := os.Stat(path + "-wal"); err != nil {
		q.Set("immutable", "1")
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// withSourceDB opens the source for one pass over it.
func withSourceDB(ctx context.Context, arg string, fn func(db *sql.DB, pg bool) error) error {
	db, pg, err := openSourceDB(arg)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.PingContext(ctx); err != nil {
		return memerr.Errorf(clierr.CodeBadInput, "import", "cannot open %s: %v", arg, err)
	}
	return fn(db, pg)
}

// sourceTime reads a timestamp column: a time, an ISO 8601 / SQL text, or
// Unix milliseconds.
func sourceTime(v any) (time.Time, error) {
	switch t := v.(type) {
	case time.Time:
		return t.UTC(), nil
	case int64:
		return time.UnixMilli(t).UTC(), nil
	case []byte:
		return sourceTime(string(t))
	case string:
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999"} {
			if tm, err := time.Parse(layout, t); err == nil {
				return tm.UTC(), nil
			}
		}
	}
	return time.Time{}, fmt.Errorf("unreadable timestamp %v", v)
}

// langchaingoRow is one row of a langchaingo chat history table.
type langchaingoRow struct {
	id      int64
	session string
	content string
	typ     string
	created time.Time // zero when the table has no timestamps
}

// langchaingoSource turns a langchaingo chat history into records: one
// thread per session (ids kept), in the order of the table's id column.
// Threads, resources, message ids and thread metadata are those the
// langchaingo/sqlite3 and langchaingo/alloydb mirrors give a session they
// import on first use (thread = session, resource lcmem.DefaultResourceID,
// message id "<table>:<session>:<row id>", metadata langchaingoImportedFrom),
// so a database migrated here is what those mirrors expect, and neither
// import duplicates the other's messages.
type langchaingoSource struct {
	kind, arg, table, resource string
	// name is the table as the mirrors name it: "table" on SQLite,
	// "schema.table" on PostgreSQL.
	name string
	// query lists rows ordered by session, then id; scan reads one.
	query string
	scan  func(*sql.Rows) (langchaingoRow, error)
	// base stamps messages of tables without timestamps.
	base time.Time
}

func langchaingoSQLiteSource(path string, o Options) (*importer.Source, error) {
	table := o.Table
	if table == "" {
		table = "langchaingo_messages"
	}
	ls := &langchaingoSource{kind: FromLangchaingoSQLite, arg: path, table: table, name: table, resource: o.Resource,
		query: `SELECT id, session, content, type, created FROM "` + strings.ReplaceAll(table, `"`, `""`) + `" ORDER BY session, id`,
		scan: func(rows *sql.Rows) (langchaingoRow, error) {
			var (
				r       langchaingoRow
				created any
			)
			if err := rows.Scan(&r.id, &r.session, &r.content, &r.typ, &created); err != nil {
				return r, err
			}
			t, err := sourceTime(created)
			r.created = t
			return r, err
		}}
	return ls.source(), nil
}

func langchaingoPostgresSource(dsn string, o Options) (*importer.Source, error) {
	if !IsPostgres(dsn) {
		return nil, clierr.Usage("--from %s needs a postgres:// DSN", FromLangchaingoPostgres)
	}
	if o.Table == "" {
		return nil, clierr.Usage("--from %s needs --table (the table given to InitChatHistoryTable)", FromLangchaingoPostgres)
	}
	ls := &langchaingoSource{kind: FromLangchaingoPostgres, arg: dsn, table: o.Table, name: o.Schema + "." + o.Table, resource: o.Resource,
		query: `SELECT id, session_id, data::text, type FROM ` + pgx.Identifier{o.Schema, o.Table}.Sanitize() + ` ORDER BY session_id, id`,
		scan: func(rows *sql.Rows) (langchaingoRow, error) {
			var (
				r    langchaingoRow
				data string
			)
			if err := rows.Scan(&r.id, &r.session, &data, &r.typ); err != nil {
				return r, err
			}
			return r, json.Unmarshal([]byte(data), &r.content)
		},
		base: time.Now().UTC().Truncate(time.Second)}
	return ls.source(), nil
}

func (ls *langchaingoSource) source() *importer.Source {
	src := &importer.Source{Name: ls.kind + " " + redactDSN(ls.arg) + " table " + ls.table, Unit: "record"}
	src.Each = func(ctx context.Context, fn func(int, export.Record) error, skip func(string)) error {
		return withSourceDB(ctx, ls.arg, func(db *sql.DB, _ bool) error {
			return ls.each(ctx, db, fn, skip)
		})
	}
	return src
}

// each streams the table: a thread line when the session changes, then its
// messages. Rows with the same timestamp keep their order by getting one
// microsecond more than the previous message.
func (ls *langchaingoSource) each(ctx context.Context, db *sql.DB, fn func(int, export.Record) error, skip func(string)) error {
	rows, err := db.QueryContext(ctx, ls.query)
	if err != nil {
		return memerr.Errorf(clierr.CodeBadInput, "import", "read %s: %v", ls.table, err)
	}
	defer rows.Close()
	var (
		n       int
		session string
		last    time.Time
		started bool
	)
	for rows.Next() {
		r, err := ls.scan(rows)
		if err != nil {
			return memerr.Errorf(clierr.CodeBadInput, "import", "read %s row: %v", ls.table, err)
		}
		if !started || r.session != session {
			started, session, last = true, r.session, time.Time{}
			n++
			th := ls.thread(r)
			if err := fn(n, export.Record{Kind: export.KindThread, Thread: &th}); err != nil {
				return err
			}
		}
		role, reason := langchaingoRole(r.typ)
		if reason != "" {
			skip(reason)
			continue
		}
		at := r.created
		if at.IsZero() {
			at = ls.base
		}
		at = export.UTC(at)
		if !at.After(last) {
			at = last.Add(time.Microsecond)
		}
		last = at
		m := message.Message{ID: fmt.Sprintf("%s:%s:%d", ls.name, r.session, r.id), Role: role, ThreadID: r.session, ResourceID: ls.resourceID(),
			CreatedAt: at, Content: message.Content{Format: 2, Parts: []message.Part{core.TextPart(r.content)}}}
		n++
		if err := fn(n, export.Record{Kind: export.KindMessage, Message: &m}); err != nil {
			return err
		}
	}
	return rows.Err()
}

// resourceID is the resource of every migrated thread.
func (ls *langchaingoSource) resourceID() string {
	if ls.resource != "" {
		return ls.resource
	}
	return lcmem.DefaultResourceID
}

func (ls *langchaingoSource) thread(r langchaingoRow) store.Thread {
	created := r.created
	if created.IsZero() {
		created = ls.base
	}
	return store.Thread{ID: r.session, ResourceID: ls.resourceID(), CreatedAt: export.UTC(created),
		Metadata: map[string]any{metadataImportedFrom: ls.name}}
}

// metadataImportedFrom is the thread metadata key the langchaingo mirrors
// write on a session they import (langchaingo/internal/legacy).
const metadataImportedFrom = "langchaingoImportedFrom"

// langchaingoRole maps a langchaingo message type to a role, or gives the
// reason it is skipped.
func langchaingoRole(typ string) (message.Role, string) {
	switch typ {
	case "human":
		return message.RoleUser, ""
	case "ai":
		return message.RoleAssistant, ""
	case "system":
		return "", "system messages (agentmem never stores them; pass instructions as TurnRequest.System)"
	case "tool", "function":
		return "", fmt.Sprintf("messages of type %q (langchaingo stores a tool result without the call it answers, which agentmem needs)", typ)
	}
	return "", fmt.Sprintf("messages of type %q (a custom role; agentmem stores user, assistant and tool messages only)", typ)
}

// redactDSN drops the password from a DSN shown in messages.
func redactDSN(s string) string {
	if !IsPostgres(s) {
		return s
	}
	cfg, err := pgx.ParseConfig(s)
	if err != nil {
		return "postgres://…"
	}
	return fmt.Sprintf("postgres://%s@%s:%d/%s", cfg.User, cfg.Host, cfg.Port, cfg.Database)
}
