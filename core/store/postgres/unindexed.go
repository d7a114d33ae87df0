package postgres

import (
	"context"

	"github.com/agentmem/agentmem/core/message"
)

// MarkUnindexed records markers for the stored messages among ids in one
// statement; a marker that exists keeps its marked_at.
func (s *Store) MarkUnindexed(ctx context.Context, ids []string) (err error) {
	const op = "MarkUnindexed"
	defer unconfirmed(ctx, op, &err)
	at := now()
	return wrap(ctx, op, retry(ctx, func() error {
		_, err := s.pool.Exec(ctx, s.q.markUnindexed, ids, at)
		return err
	}))
}

// markUnindexedSQL key-share locks the messages in id order (the order of
// saveMessagesSQL and deleteMessagesSQL) before inserting, so a message
// deleted concurrently is skipped instead of failing the foreign key.
const markUnindexedSQL = `
WITH cur AS (
	SELECT m.id FROM {{schema}}.agentmem_messages m WHERE m.id = ANY($1::text[])
	ORDER BY m.id
	FOR KEY SHARE
)
INSERT INTO {{schema}}.agentmem_unindexed (message_id, marked_at)
SELECT id, $2 FROM cur ORDER BY id
ON CONFLICT (message_id) DO NOTHING`

// ClearUnindexed removes the markers of ids in one statement.
func (s *Store) ClearUnindexed(ctx context.Context, ids []string) (err error) {
	const op = "ClearUnindexed"
	defer unconfirmed(ctx, op, &err)
	return wrap(ctx, op, retry(ctx, func() error {
		_, err := s.pool.Exec(ctx, s.q.clearUnindexed, ids)
		return err
	}))
}

const clearUnindexedSQL = `DELETE FROM {{schema}}.agentmem_unindexed WHERE message_id = ANY($1::text[])`

// ListUnindexed returns the oldest marked messages of a resource (or of all)
// in one statement.
func (s *Store) ListUnindexed(ctx context.Context, resourceID string, limit int) ([]message.Message, error) {
	const op = "ListUnindexed"
	return s.queryMessages(ctx, op, s.q.listUnindexed, resourceID, int64(limit))
}

const listUnindexedSQL = `SELECT ` + messageCols + ` FROM {{schema}}.agentmem_messages
WHERE id IN (SELECT message_id FROM {{schema}}.agentmem_unindexed) AND ($1::text = '' OR resource_id = $1::text)
ORDER BY created_at, seq LIMIT $2`
