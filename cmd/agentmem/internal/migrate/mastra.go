package migrate

import (
	"context"
	"database/sql"
	"encoding/json"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"sort"
	"strings"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/clierr"
	"github.com/agentmem/agentmem/cmd/agentmem/internal/export"
	"github.com/agentmem/agentmem/cmd/agentmem/internal/importer"
	"github.com/agentmem/agentmem/core/memerr"
)

// mastraSource reads Mastra's memory tables (mastra_resources,
// mastra_threads, mastra_messages) from a LibSQL/SQLite file (@mastra/libsql)
// or a PostgreSQL database (@mastra/pg, schema --schema). Ids, titles,
// metadata, times and format-2 content are kept; thread-scoped working memory
// (Mastra keeps it in the thread's metadata) becomes the thread's working
// memory and resource-scoped working memory the resource's.
func mastraSource(arg string, o Options) (*importer.Source, error) {
	src := &importer.Source{Name: FromMastra + " " + redactDSN(arg), Unit: "record"}
	src.Each = func(ctx context.Context, fn func(int, export.Record) error, skip func(string)) error {
		return withSourceDB(ctx, arg, func(db *sql.DB, pg bool) error {
			if err := mastraTables(ctx, db, pg, o.Schema, arg); err != nil {
				return err
			}
			m := &mastraReader{db: db, q: mastraQueries(pg, o.Schema), fn: fn, skip: skip}
			return m.run(ctx)
		})
	}
	return src, nil
}

// mastraSQL holds the dialect-specific queries.
type mastraSQL struct{ resources, threads, messages string }

func mastraQueries(pg bool, schema string) mastraSQL {
	if pg {
		t := func(name string) string { return `"` + schema + `".` + name }
		return mastraSQL{
			resources: `SELECT id, "workingMemory", metadata::text FROM ` + t("mastra_resources") + ` ORDER BY id`,
			threads:   `SELECT id, "resourceId", title, metadata::text, "createdAt", "updatedAt" FROM ` + t("mastra_threads") + ` ORDER BY "resourceId", "createdAt", id`,
			messages:  `SELECT id, content, role, "createdAt", "resourceId" FROM ` + t("mastra_messages") + ` WHERE thread_id = $1 ORDER BY "createdAt", id`,
		}
	}
	// json() reads both text and SQLite's binary JSONB, which Mastra writes.
	return mastraSQL{
		resources: `SELECT id, workingMemory, json(metadata) FROM mastra_resources ORDER BY id`,
		threads:   `SELECT id, resourceId, title, json(metadata), createdAt, updatedAt FROM mastra_threads ORDER BY resourceId, createdAt, id`,
		messages:  `SELECT id, content, role, createdAt, resourceId FROM mastra_messages WHERE thread_id = ? ORDER BY createdAt, id`,
	}
}

type mastraReader struct {
	db   *sql.DB
	q    mastraSQL
	fn   func(int, export.Record) error
	skip func(string)
	n    int
}

func (m *mastraReader) emit(r export.Record) error {
	m.n++
	return m.fn(m.n, r)
}

// run emits, per resource in id order, the resource and then its threads.
func (m *mastraReader) run(ctx context.Context) error {
	resources, err := m.resources(ctx)
	if err != nil {
		return err
	}
	threads, err := m.threads(ctx)
	if err != nil {
		return err
	}
	ids := make([]string, 0, len(resources))
	for id := range resources {
		ids = append(ids, id)
	}
	for id := range threads {
		if _, ok := resources[id]; !ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		doc := resources[id]
		doc.ID = id
		if err := m.emit(export.Record{Kind: export.KindResource, Resource: &doc}); err != nil {
			return err
		}
		for _, t := range threads[id] {
			if err := m.thread(ctx, t); err != nil {
				return err
			}
		}
	}
	return nil
}

func (m *mastraReader) resources(ctx context.Context) (map[string]export.ResourceDoc, error) {
	rows, err := m.db.QueryContext(ctx, m.q.resources)
	if err != nil {
		return nil, memerr.Errorf(clierr.CodeBadInput, "import", "read mastra_resources: %v", err)
	}
	defer rows.Close()
	out := map[string]export.ResourceDoc{}
	for rows.Next() {
		var (
			id       string
			wm, meta sql.NullString
		)
		if err := rows.Scan(&id, &wm, &meta); err != nil {
			return nil, err
		}
		md, ok := jsonObject(meta)
		if !ok {
			m.skip("resource metadata that is not a JSON object (the resource is kept without it)")
		}
		out[id] = export.ResourceDoc{ID: id, WorkingMemory: wm.String, Metadata: md}
	}
	return out, rows.Err()
}

// jsonObject decodes a JSON object column; false when it is not one.
// @mastra/pg stores an empty resource metadata as the JSON string "{}", so
// a string holding an object is read as that object.
func jsonObject(s sql.NullString) (map[string]any, bool) {
	if !s.Valid || s.String == "" || s.String == "null" {
		return nil, true
	}
	var md map[string]any
	if err := json.Unmarshal([]byte(s.String), &md); err != nil {
		var inner string
		if json.Unmarshal([]byte(s.String), &inner) != nil || json.Unmarshal([]byte(inner), &md) != nil {
			return nil, false
		}
	}
	if len(md) == 0 {
		md = nil
	}
	return md, true
}

// mastraThread is a thread and the working memory in its metadata.
type mastraThread struct {
	thread store.Thread
	wm     *string
}

func (m *mastraReader) threads(ctx context.Context) (map[string][]mastraThread, error) {
	rows, err := m.db.QueryContext(ctx, m.q.threads)
	if err != nil {
		return nil, memerr.Errorf(clierr.CodeBadInput, "import", "read mastra_threads: %v", err)
	}
	defer rows.Close()
	out := map[string][]mastraThread{}
	for rows.Next() {
		var (
			t                 mastraThread
			meta              sql.NullString
			created, updated  any
			errCreate, errUpd error
		)
		if err := rows.Scan(&t.thread.ID, &t.thread.ResourceID, &t.thread.Title, &meta, &created, &updated); err != nil {
			return nil, err
		}
		t.thread.CreatedAt, errCreate = sourceTime(created)
		t.thread.UpdatedAt, errUpd = sourceTime(updated)
		if errCreate != nil || errUpd != nil {
			m.skip("threads with unreadable timestamps (and their messages)")
			continue
		}
		md, ok := jsonObject(meta)
		if !ok {
			m.skip("thread metadata that is not a JSON object (the thread is kept without it)")
		}
		if wm, isText := md["workingMemory"].(string); isText {
			t.wm = &wm
			delete(md, "workingMemory")
		}
		if len(md) > 0 {
			t.thread.Metadata = md
		}
		out[t.thread.ResourceID] = append(out[t.thread.ResourceID], t)
	}
	return out, rows.Err()
}

func (m *mastraReader) thread(ctx context.Context, t mastraThread) error {
	th := t.thread
	if err := m.emit(export.Record{Kind: export.KindThread, Thread: &th}); err != nil {
		return err
	}
	rows, err := m.db.QueryContext(ctx, m.q.messages, th.ID)
	if err != nil {
		return memerr.Errorf(clierr.CodeBadInput, "import", "read mastra_messages: %v", err)
	}
	defer rows.Close()
	for rows.Next() {
		msg, reason, err := scanMastraMessage(rows, th)
		if err != nil {
			return err
		}
		if reason != "" {
			m.skip(reason)
			continue
		}
		if err := m.emit(export.Record{Kind: export.KindMessage, Message: &msg}); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if t.wm != nil {
		return m.emit(export.Record{Kind: export.KindWorkingMemory, WorkingMemory: &export.WorkingMemoryDoc{ThreadID: th.ID, Data: *t.wm}})
	}
	return nil
}

// scanMastraMessage reads one mastra_messages row; a non-empty reason says
// why it is skipped.
func scanMastraMessage(rows *sql.Rows, th store.Thread) (message.Message, string, error) {
	var (
		msg      message.Message
		content  string
		role     string
		created  any
		resource sql.NullString
	)
	if err := rows.Scan(&msg.ID, &content, &role, &created, &resource); err != nil {
		return msg, "", err
	}
	msg.ThreadID, msg.ResourceID, msg.Role = th.ID, th.ResourceID, message.Role(role)
	switch msg.Role {
	case message.RoleUser, message.RoleAssistant:
	case message.RoleSystem:
		return msg, "system messages (agentmem never stores them)", nil
	default:
		return msg, "messages with role " + role + " (format 1 tool messages have no format-2 equivalent on their own)", nil
	}
	if resource.Valid && resource.String != "" && resource.String != th.ResourceID {
		return msg, "messages whose resourceId differs from their thread's", nil
	}
	var err error
	if msg.CreatedAt, err = sourceTime(created); err != nil {
		return msg, "messages with unreadable timestamps", nil
	}
	if err := json.Unmarshal([]byte(content), &msg.Content); err != nil {
		return msg, "messages whose content is not Mastra message JSON", nil
	}
	msg.Content.Format = 2
	return msg, "", nil
}

// mastraMemoryTables are the tables a Mastra memory store creates and import
// reads.
var mastraMemoryTables = []string{"mastra_messages", "mastra_resources", "mastra_threads"}

// mastraTables fails with clierr.CodeBadInput, naming what is missing, unless the
// source holds every table of mastraMemoryTables.
func mastraTables(ctx context.Context, db *sql.DB, pg bool, schema, arg string) error {
	q := `SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'mastra\_%' ESCAPE '\'`
	var args []any
	if pg {
		q = `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_name LIKE 'mastra\_%'`
		args = append(args, schema)
	}
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return memerr.Errorf(clierr.CodeBadInput, "import", "cannot read %s: %v", redactDSN(arg), err)
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return memerr.Errorf(clierr.CodeBadInput, "import", "cannot read %s: %v", redactDSN(arg), err)
		}
		have[name] = true
	}
	if err := rows.Err(); err != nil {
		return memerr.Errorf(clierr.CodeBadInput, "import", "cannot read %s: %v", redactDSN(arg), err)
	}
	var missing []string
	for _, t := range mastraMemoryTables {
		if !have[t] {
			missing = append(missing, t)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	where := redactDSN(arg)
	if pg {
		where += " (schema " + schema + ")"
	}
	return memerr.Errorf(clierr.CodeBadInput, "import", "%s is not a Mastra memory database: it has no table %s (Mastra's LibSQLStore or PostgresStore creates %s)",
		where, strings.Join(missing, ", "), strings.Join(mastraMemoryTables, ", "))
}
