package legacy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/tmc/langchaingo/llms"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/postgres"
)

// PostgresHistory is the history of langchaingo/alloydb and
// langchaingo/cloudsql: a session of a core.Memory over agentmem's
// PostgreSQL store (its tables in the schema of upstream's table), importing
// upstream's table (id, session_id, data jsonb,
// type) on first use. Its methods are those of upstream's
// ChatMessageHistory.
//
// As upstream's, it is used as a value whose methods have pointer receivers:
// pass &h where a schema.ChatMessageHistory is needed.
type PostgresHistory struct {
	hist       *History
	schemaName string
}

// PostgresOption configures NewPostgres (upstream's
// ChatMessageHistoryStoresOption).
type PostgresOption func(c *PostgresHistory)

// WithSchemaName sets the schema of upstream's table, and of agentmem's
// tables; default "public".
func WithSchemaName(schemaName string) PostgresOption {
	return func(c *PostgresHistory) { c.schemaName = schemaName }
}

// NewPostgres returns the history of sessionID in pool's database; kind
// ("alloyDB", "cloudSQL") names the engine in upstream's errors.
func NewPostgres(ctx context.Context, kind string, pool *pgxpool.Pool, tableName, sessionID string, opts ...PostgresOption) (PostgresHistory, error) {
	switch {
	case pool == nil:
		return PostgresHistory{}, fmt.Errorf("%s engine must be provided", kind)
	case tableName == "":
		return PostgresHistory{}, errors.New("table name must be provided")
	case sessionID == "":
		return PostgresHistory{}, errors.New("session ID must be provided")
	}
	h := PostgresHistory{schemaName: "public"}
	for _, o := range opts {
		o(&h)
	}
	store, err := postgres.New(ctx, pool, postgres.WithSchema(h.schemaName))
	if err != nil {
		return PostgresHistory{}, err
	}
	mem, err := core.New(core.Options{Store: store, Config: core.Config{LastMessages: core.AllMessages}})
	if err != nil {
		return PostgresHistory{}, err
	}
	h.hist = New(mem, pgTable{pool: pool, schema: h.schemaName, name: tableName}, sessionID)
	return h, nil
}

// AddMessage appends a message of any type.
func (h *PostgresHistory) AddMessage(ctx context.Context, message llms.ChatMessage) error {
	return h.AddMessages(ctx, []llms.ChatMessage{message})
}

// AddAIMessage appends an AI message.
func (h *PostgresHistory) AddAIMessage(ctx context.Context, content string) error {
	return h.AddMessage(ctx, llms.AIChatMessage{Content: content})
}

// AddUserMessage appends a human message.
func (h *PostgresHistory) AddUserMessage(ctx context.Context, content string) error {
	return h.AddMessage(ctx, llms.HumanChatMessage{Content: content})
}

// AddMessages appends messages, one after the other.
func (h *PostgresHistory) AddMessages(ctx context.Context, messages []llms.ChatMessage) error {
	chat, err := h.hist.Chat(ctx)
	if err != nil {
		return err
	}
	for _, m := range messages {
		if err := chat.AddMessage(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

// Messages returns the session's messages, oldest first.
func (h *PostgresHistory) Messages(ctx context.Context) ([]llms.ChatMessage, error) {
	chat, err := h.hist.Chat(ctx)
	if err != nil {
		return nil, err
	}
	return chat.Messages(ctx)
}

// Clear deletes the session, here and in upstream's table.
func (h *PostgresHistory) Clear(ctx context.Context) error { return h.hist.Clear(ctx) }

// SetMessages replaces the session's messages.
func (h *PostgresHistory) SetMessages(ctx context.Context, messages []llms.ChatMessage) error {
	chat, err := h.hist.Chat(ctx)
	if err != nil {
		return err
	}
	return chat.SetMessages(ctx, messages)
}

// pgTable is upstream's table: id SERIAL, session_id TEXT, data JSONB (the
// content as a JSON string), type TEXT.
type pgTable struct {
	pool         *pgxpool.Pool
	schema, name string
}

func (t pgTable) Name() string { return t.schema + "." + t.name }

func (t pgTable) ident() string { return pgx.Identifier{t.schema, t.name}.Sanitize() }

func (t pgTable) exists(ctx context.Context) (bool, error) {
	var ok bool
	err := t.pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2)`,
		t.schema, t.name).Scan(&ok)
	return ok, err
}

// Rows returns the session's rows in upstream's order (id).
func (t pgTable) Rows(ctx context.Context, session string) ([]Row, error) {
	if ok, err := t.exists(ctx); !ok || err != nil {
		return nil, err
	}
	rows, err := t.pool.Query(ctx, `SELECT id, data::text, type FROM `+t.ident()+` WHERE session_id = $1 ORDER BY id`, session)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Row
	for rows.Next() {
		var id int64
		var data string
		var r Row
		if err := rows.Scan(&id, &data, &r.Type); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(data), &r.Content); err != nil {
			return nil, fmt.Errorf("row %d: data is not a JSON string: %w", id, err)
		}
		r.Key = strconv.FormatInt(id, 10)
		out = append(out, r)
	}
	return out, rows.Err()
}

// Delete deletes the session's rows.
func (t pgTable) Delete(ctx context.Context, session string) error {
	if ok, err := t.exists(ctx); !ok || err != nil {
		return err
	}
	_, err := t.pool.Exec(ctx, `DELETE FROM `+t.ident()+` WHERE session_id = $1`, session)
	return err
}
