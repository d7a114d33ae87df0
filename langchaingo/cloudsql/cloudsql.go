// Package cloudsql mirrors langchaingo's memory/cloudsql: a chat message history
// in PostgreSQL (Cloud SQL, or any server reached through the engine's pool),
// with the same constructor, option and methods, stored in agentmem's
// PostgreSQL store (core/store/postgres) in the same database and schema.
// Swapping the import path is the whole migration:
//
//	import cloudsql "github.com/agentmem/agentmem/langchaingo/cloudsql" // was .../langchaingo/memory/cloudsql
//
//	h, err := cloudsql.NewChatMessageHistory(ctx, engine, "chat_history", "alice")
//	mem := lcmem.NewConversationBuffer(lcmem.WithChatHistory(&h))
//
// Existing conversations are kept: on first use of a session that agentmem
// does not hold yet, the session's rows of upstream's table (tableName in
// WithSchemaName's schema, default "public") are imported in id order.
// Upstream's table is not written to afterwards; Clear deletes the
// session's rows there too, as upstream's does.
//
// Differences: the table need not exist (upstream fails without it); every
// message type is stored and read back (upstream keeps type and content and
// fails on reading a tool or function message); SetMessages is atomic.
//
// The PostgreSQL mirror is this package and its twin (alloydb, cloudsql):
// upstream has no plain "postgres" history; for a new program use
// lcmem.WithMemory with a core.Memory over core/store/postgres instead.
package cloudsql

import (
	"context"

	"github.com/tmc/langchaingo/schema"
	"github.com/tmc/langchaingo/util/cloudsqlutil"

	"github.com/agentmem/agentmem/langchaingo/internal/legacy"
)

// ChatMessageHistory is the history of one session. As upstream's, it is
// returned as a value whose methods have pointer receivers: pass &h where a
// schema.ChatMessageHistory is needed.
type ChatMessageHistory = legacy.PostgresHistory

var _ schema.ChatMessageHistory = &ChatMessageHistory{}

// ChatMessageHistoryStoresOption configures NewChatMessageHistory.
type ChatMessageHistoryStoresOption = legacy.PostgresOption

// WithSchemaName sets the schema of upstream's table (and of agentmem's
// tables); default "public".
func WithSchemaName(schemaName string) ChatMessageHistoryStoresOption {
	return legacy.WithSchemaName(schemaName)
}

// NewChatMessageHistory returns the history of sessionID, migrating
// agentmem's tables in the engine's database.
func NewChatMessageHistory(ctx context.Context, engine cloudsqlutil.PostgresEngine, tableName, sessionID string,
	opts ...ChatMessageHistoryStoresOption,
) (ChatMessageHistory, error) {
	return legacy.NewPostgres(ctx, "cloudSQL", engine.Pool, tableName, sessionID, opts...)
}
