package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
)

var _ store.ThreadMover = (*Store)(nil)

// The thread row is locked first (FOR UPDATE), so that overlapping moves of
// one thread, and saves into it (which lock the thread), run one after the
// other and never leave the thread and its messages with different owners.
const (
	lockThreadForMoveSQL = getThreadSQL + ` FOR UPDATE`
	moveThreadSQL        = `UPDATE {{schema}}.agentmem_threads SET resource_id = $2, updated_at = GREATEST(updated_at, $3) WHERE id = $1`
	moveMessagesSQL      = `UPDATE {{schema}}.agentmem_messages SET resource_id = $2 WHERE thread_id = $1`
	markThreadSQL        = `INSERT INTO {{schema}}.agentmem_unindexed (message_id, marked_at)
	SELECT id, $2 FROM {{schema}}.agentmem_messages WHERE thread_id = $1
	ON CONFLICT (message_id) DO NOTHING`
)

// MoveThread implements store.ThreadMover in one transaction.
func (s *Store) MoveThread(ctx context.Context, threadID, resourceID string) (_ store.Thread, err error) {
	const op = "MoveThread"
	defer unconfirmed(ctx, op, &err)
	q := func(tmpl string) string { return withSchema(tmpl, quoteIdent(s.schema)) }
	var out store.Thread
	err = retry(ctx, func() error {
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			th, err := scanThread(tx.QueryRow(ctx, q(lockThreadForMoveSQL), threadID))
			if err != nil || th.ResourceID == resourceID {
				out = th
				return err
			}
			at := now()
			if _, err := tx.Exec(ctx, q(moveThreadSQL), threadID, resourceID, at); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, q(moveMessagesSQL), threadID, resourceID); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, q(markThreadSQL), threadID, at); err != nil {
				return err
			}
			out, err = scanThread(tx.QueryRow(ctx, q(getThreadSQL), threadID))
			return err
		})
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Thread{}, withOp(memerr.CodeThreadNotFound, op, "thread not found")
	}
	if err != nil {
		return store.Thread{}, wrap(ctx, op, err)
	}
	return out, nil
}
