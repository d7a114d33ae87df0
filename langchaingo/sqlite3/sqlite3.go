// Package sqlite3 mirrors langchaingo's memory/sqlite3: a chat message
// history in a SQLite database, with the same constructor, options, fields
// and defaults, stored in agentmem's SQLite store (core/store/sqlite, pure
// Go, no cgo) instead of upstream's langchaingo_messages table. Swapping the
// import path is the whole migration:
//
//	import sqlite3 "github.com/agentmem/agentmem/langchaingo/sqlite3" // was .../langchaingo/memory/sqlite3
//
//	h := sqlite3.NewSqliteChatMessageHistory(sqlite3.WithDBAddress("chat.db"), sqlite3.WithSession("alice"))
//	mem := lcmem.NewConversationBuffer(lcmem.WithChatHistory(h))
//
// Existing conversations are kept: on first use of a session that agentmem
// does not hold yet, the session's rows of upstream's table (TableName, in
// the same database) are imported, in order, as upstream reads them (human,
// ai and system rows). Upstream's table is not written to afterwards; Clear
// deletes the session's rows there too, as upstream's does.
//
// Every message type is stored (tool calls, tool results, names), unlike
// upstream, which keeps only type and content. Other differences: errors
// opening or migrating the database are returned by the first call instead
// of a panic; Messages returns the newest Limit messages (upstream returns
// the oldest); Schema is not executed (agentmem migrates its own tables).
// As upstream, Clear and SetMessages do nothing unless WithOverwrite is set.
package sqlite3

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/schema"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/sqlite"
	"github.com/agentmem/agentmem/langchaingo/internal/legacy"
)

// DefaultLimit is the default number of messages Messages returns.
const DefaultLimit = 1000

// DefaultTableName is the name of upstream's table, imported from.
const DefaultTableName = "langchaingo_messages"

// DefaultSchema is upstream's schema of its table, kept for source
// compatibility (see WithSchema).
const DefaultSchema = `CREATE TABLE IF NOT EXISTS %s (
		id INTEGER PRIMARY KEY,
		name TEXT,
		session TEXT NOT NULL,
		content TEXT NOT NULL,
		type TEXT NOT NULL,
		created TIMESTAMP DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX IF NOT EXISTS idx_langchaingo_id ON %s (id);
CREATE INDEX IF NOT EXISTS idx_langchaingo_session ON %s (session);`

// SqliteChatMessageHistory is a schema.ChatMessageHistory of one session in
// a SQLite database. It is safe for concurrent use; several processes may
// use the same database file.
type SqliteChatMessageHistory struct {
	// DB reads upstream's table: the handle given with WithDB, else one
	// opened on DBAddress.
	DB *sql.DB
	// Ctx is the context of opening and migrating the database.
	Ctx context.Context
	// DBAddress is the database file (or "file:" URI); default ":memory:".
	DBAddress string
	// TableName is upstream's table, imported from; default DefaultTableName.
	TableName string
	// Limit is the most messages Messages returns; default DefaultLimit.
	Limit int
	// Session is the conversation; default "default".
	Session string
	// Schema is upstream's DDL; not executed.
	Schema []byte
	// Overwrite lets Clear and SetMessages change the history.
	Overwrite bool

	hist *legacy.History
	err  error // opening failed: every call returns it
}

var _ schema.ChatMessageHistory = &SqliteChatMessageHistory{}

// SqliteChatMessageHistoryOption configures NewSqliteChatMessageHistory.
type SqliteChatMessageHistoryOption func(m *SqliteChatMessageHistory)

// WithDB uses db, a handle on a SQLite database file (opened with any
// driver), to find the file and read upstream's table. An in-memory db
// cannot be shared with agentmem's store: the first call fails.
func WithDB(db *sql.DB) SqliteChatMessageHistoryOption {
	return func(m *SqliteChatMessageHistory) { m.DB = db }
}

// WithContext sets the context of opening and migrating the database.
func WithContext(ctx context.Context) SqliteChatMessageHistoryOption {
	return func(m *SqliteChatMessageHistory) { m.Ctx = ctx }
}

// WithLimit sets the most messages Messages returns.
func WithLimit(limit int) SqliteChatMessageHistoryOption {
	return func(m *SqliteChatMessageHistory) { m.Limit = limit }
}

// WithSchema sets upstream's DDL; kept for source compatibility, not executed.
func WithSchema(schema []byte) SqliteChatMessageHistoryOption {
	return func(m *SqliteChatMessageHistory) { m.Schema = schema }
}

// WithOverwrite lets Clear and SetMessages change the history.
func WithOverwrite() SqliteChatMessageHistoryOption {
	return func(m *SqliteChatMessageHistory) { m.Overwrite = true }
}

// WithDBAddress sets the database file.
func WithDBAddress(addr string) SqliteChatMessageHistoryOption {
	return func(m *SqliteChatMessageHistory) { m.DBAddress = addr }
}

// WithTableName sets upstream's table to import from.
func WithTableName(name string) SqliteChatMessageHistoryOption {
	return func(m *SqliteChatMessageHistory) { m.TableName = name }
}

// WithSession sets the conversation.
func WithSession(session string) SqliteChatMessageHistoryOption {
	return func(m *SqliteChatMessageHistory) { m.Session = session }
}

// NewSqliteChatMessageHistory returns the history of a session, opening
// the database (and migrating agentmem's tables in it). A failure is
// returned by every call of the history.
func NewSqliteChatMessageHistory(options ...SqliteChatMessageHistoryOption) *SqliteChatMessageHistory {
	h := &SqliteChatMessageHistory{}
	for _, o := range options {
		o(h)
	}
	if h.TableName == "" {
		h.TableName = DefaultTableName
	}
	if h.Limit < 1 {
		h.Limit = DefaultLimit
	}
	if h.Schema == nil {
		h.Schema = []byte(fmt.Sprintf(DefaultSchema, h.TableName, h.TableName, h.TableName))
	}
	if h.Ctx == nil {
		h.Ctx = context.Background()
	}
	if h.DBAddress == "" {
		h.DBAddress = ":memory:"
	}
	if h.Session == "" {
		h.Session = "default"
	}
	h.err = h.open()
	return h
}

// open opens agentmem's store on the database and the handle on upstream's table.
func (h *SqliteChatMessageHistory) open() error {
	path := h.DBAddress
	if h.DB != nil {
		var err error
		if path, err = databaseFile(h.Ctx, h.DB); err != nil {
			return err
		}
	} else {
		db, err := sql.Open("sqlite", h.DBAddress) // registered by core/store/sqlite
		if err != nil {
			return err
		}
		h.DB = db
	}
	store, err := sqlite.Open(h.Ctx, path)
	if err != nil {
		return err
	}
	mem, err := core.New(core.Options{Store: store, Config: core.Config{LastMessages: core.AllMessages}})
	if err != nil {
		return err
	}
	h.hist = legacy.New(mem, table{db: h.DB, name: h.TableName}, h.Session)
	return nil
}

// databaseFile returns the file of db's main database.
func databaseFile(ctx context.Context, db *sql.DB) (string, error) {
	var file string
	if err := db.QueryRowContext(ctx, "SELECT file FROM pragma_database_list WHERE name = 'main'").Scan(&file); err != nil {
		return "", fmt.Errorf("langchaingo sqlite3: finding the file of WithDB's database: %w", err)
	}
	if file == "" {
		return "", errors.New("langchaingo sqlite3: WithDB's database is in memory and cannot be shared with agentmem's store; use a database file or WithDBAddress")
	}
	return file, nil
}

func (h *SqliteChatMessageHistory) chat(ctx context.Context) (schema.ChatMessageHistory, error) {
	if h.err != nil {
		return nil, h.err
	}
	return h.hist.Chat(ctx)
}

// Messages returns the newest Limit messages of the session, oldest first.
func (h *SqliteChatMessageHistory) Messages(ctx context.Context) ([]llms.ChatMessage, error) {
	c, err := h.chat(ctx)
	if err != nil {
		return nil, err
	}
	msgs, err := c.Messages(ctx)
	if err != nil {
		return nil, err
	}
	if len(msgs) > h.Limit {
		msgs = msgs[len(msgs)-h.Limit:]
	}
	return msgs, nil
}

// AddMessage appends a message of any type.
func (h *SqliteChatMessageHistory) AddMessage(ctx context.Context, message llms.ChatMessage) error {
	c, err := h.chat(ctx)
	if err != nil {
		return err
	}
	return c.AddMessage(ctx, message)
}

// AddAIMessage appends an AI message.
func (h *SqliteChatMessageHistory) AddAIMessage(ctx context.Context, text string) error {
	return h.AddMessage(ctx, llms.AIChatMessage{Content: text})
}

// AddUserMessage appends a human message.
func (h *SqliteChatMessageHistory) AddUserMessage(ctx context.Context, text string) error {
	return h.AddMessage(ctx, llms.HumanChatMessage{Content: text})
}

// Clear deletes the session (here and in upstream's table) when Overwrite is set.
func (h *SqliteChatMessageHistory) Clear(ctx context.Context) error {
	if h.err != nil || !h.Overwrite {
		return h.err
	}
	return h.hist.Clear(ctx)
}

// SetMessages replaces the session's messages when Overwrite is set.
func (h *SqliteChatMessageHistory) SetMessages(ctx context.Context, messages []llms.ChatMessage) error {
	if h.err != nil || !h.Overwrite {
		return h.err
	}
	c, err := h.chat(ctx)
	if err != nil {
		return err
	}
	return c.SetMessages(ctx, messages)
}

// table is upstream's table in the database.
type table struct {
	db   *sql.DB
	name string
}

// Name identifies the table in imported message ids and thread metadata.
func (t table) Name() string { return t.name }

func (t table) exists(ctx context.Context) (bool, error) {
	var n int
	err := t.db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", t.name).Scan(&n)
	return n > 0, err
}

// Rows returns the session's rows in upstream's order (created, then id).
func (t table) Rows(ctx context.Context, session string) ([]legacy.Row, error) {
	if ok, err := t.exists(ctx); !ok || err != nil {
		return nil, err
	}
	rows, err := t.db.QueryContext(ctx, `SELECT id, type, content, created FROM "`+quote(t.name)+`" WHERE session = ? ORDER BY created, id`, session)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []legacy.Row
	for rows.Next() {
		var id int64
		var r legacy.Row
		var created any
		if err := rows.Scan(&id, &r.Type, &r.Content, &created); err != nil {
			return nil, err
		}
		r.Key, r.Created = strconv.FormatInt(id, 10), sqliteTime(created)
		out = append(out, r)
	}
	return out, rows.Err()
}

// Delete deletes the session's rows.
func (t table) Delete(ctx context.Context, session string) error {
	if ok, err := t.exists(ctx); !ok || err != nil {
		return err
	}
	_, err := t.db.ExecContext(ctx, `DELETE FROM "`+quote(t.name)+`" WHERE session = ?`, session)
	return err
}

func quote(name string) string { return strings.ReplaceAll(name, `"`, `""`) }

// sqliteTime reads a CURRENT_TIMESTAMP value ("2006-01-02 15:04:05", UTC),
// as text or as the time a driver made of it; zero when unreadable.
func sqliteTime(v any) time.Time {
	switch t := v.(type) {
	case time.Time:
		return t.UTC()
	case string:
		p, _ := time.Parse(time.DateTime, t)
		return p
	case []byte:
		p, _ := time.Parse(time.DateTime, string(t))
		return p
	}
	return time.Time{}
}
