package sqlite

import (
	"context"
	"database/sql"

	"github.com/agentmem/agentmem/core/store"
)

var _ store.ThreadMover = (*Store)(nil)

// MoveThread implements store.ThreadMover in one write transaction (SQLite
// has one writer, so concurrent moves and saves of the thread serialise).
func (s *Store) MoveThread(ctx context.Context, threadID, resourceID string) (store.Thread, error) {
	const op = "MoveThread"
	at := s.stamp()
	var out store.Thread
	err := s.write(ctx, op, func(tx *sql.Tx) error {
		th, err := getThread(ctx, tx, op, threadID)
		if err != nil || th.ResourceID == resourceID {
			out = th
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE threads SET resource_id = ?, updated_at = MAX(updated_at, ?) WHERE id = ?`,
			resourceID, at, threadID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE messages SET resource_id = ? WHERE thread_id = ?`, resourceID, threadID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO unindexed (message_id, marked_at)
			SELECT id, ? FROM messages WHERE thread_id = ?
			ON CONFLICT (message_id) DO NOTHING`, at, threadID); err != nil {
			return err
		}
		out, err = getThread(ctx, tx, op, threadID)
		return err
	})
	return out, err
}
