package sqlite

import (
	"context"
	"database/sql"

	"github.com/agentmem/agentmem/core/message"
)

// MarkUnindexed records markers for the stored messages among ids; a marker
// that exists keeps its marked_at.
func (s *Store) MarkUnindexed(ctx context.Context, ids []string) error {
	const op = "MarkUnindexed"
	at := s.stamp()
	return s.write(ctx, op, func(tx *sql.Tx) error {
		for _, c := range chunk(dedup(ids), maxIn) {
			if _, err := tx.ExecContext(ctx, `INSERT INTO unindexed (message_id, marked_at)
				SELECT id, ? FROM messages WHERE id IN (`+placeholders(len(c))+`)
				ON CONFLICT (message_id) DO NOTHING`, append([]any{at}, anyArgs(c)...)...); err != nil {
				return err
			}
		}
		return nil
	})
}

// ClearUnindexed removes the markers of ids.
func (s *Store) ClearUnindexed(ctx context.Context, ids []string) error {
	const op = "ClearUnindexed"
	return s.write(ctx, op, func(tx *sql.Tx) error {
		for _, c := range chunk(dedup(ids), maxIn) {
			if _, err := tx.ExecContext(ctx, `DELETE FROM unindexed WHERE message_id IN (`+placeholders(len(c))+`)`, anyArgs(c)...); err != nil {
				return err
			}
		}
		return nil
	})
}

// ListUnindexed returns the oldest marked messages of a resource (or of all).
func (s *Store) ListUnindexed(ctx context.Context, resourceID string, limit int) ([]message.Message, error) {
	const op = "ListUnindexed"
	query := `SELECT ` + messageCols + ` FROM messages WHERE id IN (SELECT message_id FROM unindexed)
		AND (? = '' OR resource_id = ?) ORDER BY created_at, seq LIMIT ?`
	var out []message.Message
	err := s.read(ctx, op, func(tx *sql.Tx) error {
		var err error
		out, err = queryMessages(ctx, tx, query, resourceID, resourceID, limit)
		return err
	})
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = []message.Message{}
	}
	return out, nil
}
