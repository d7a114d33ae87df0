package postgres

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"

	"github.com/jackc/pgx/v5"
)

// boundaryTimeLayout is how createdAt is stored inside the boundary JSONB:
// ISO 8601 in UTC with exactly microsecond precision.
const boundaryTimeLayout = "2006-01-02T15:04:05.000000Z07:00"

// storedBoundary is the JSONB shape of threads.boundary.
type storedBoundary struct {
	CreatedAt         string   `json:"createdAt"`
	MessageIDs        []string `json:"messageIds"`
	MaxTokens         int      `json:"maxTokens"`
	AtMaxRemoveTokens int      `json:"atMaxRemoveTokens"`
}

// AdvanceBoundary merges cand into the thread's boundary with one UPDATE
// whose SET expression is store.MergeBoundary written over the stored JSONB
// (timestamps compared as timestamptz). Row locking makes it a
// compare-and-set: a concurrent writer's value is re-read before merging. A
// missing thread or one owned by another resource is reported from the same
// statement, with nothing written.
func (s *Store) AdvanceBoundary(ctx context.Context, threadID, resourceID string, cand store.Boundary) (_ store.Boundary, err error) {
	const op = "AdvanceBoundary"
	defer unconfirmed(ctx, op, &err)
	cand = cand.Clone()
	cand.CreatedAt = utc(cand.CreatedAt)
	var (
		stored []byte
		owner  *string
	)
	err = retry(ctx, func() error {
		if cand.SeenSeq == 0 && cand.ReadAt.IsZero() {
			return s.advance(ctx, s.pool, threadID, resourceID, cand, &stored, &owner)
		}
		// Lock the thread and read its boundary first, then look for unseen
		// messages in a new statement (a new snapshot), so that a save that
		// committed while we waited for the lock is seen.
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			var (
				raw   []byte
				first *time.Time
			)
			switch err := tx.QueryRow(ctx, s.q.lockThreadUpdate, threadID).Scan(&raw); {
			case errors.Is(err, pgx.ErrNoRows): // reported by advance
			case err != nil:
				return err
			}
			cur, err := decodeBoundary(raw)
			if err != nil {
				return err
			}
			if cand.SeenSeq > 0 {
				if err := tx.QueryRow(ctx, s.q.firstUnseen, threadID, cand.SeenSeq).Scan(&first); err != nil {
					return err
				}
			}
			var at time.Time
			if first != nil {
				at = *first
			}
			return s.advance(ctx, tx, threadID, resourceID, store.ClampBoundary(cand, cur, at), &stored, &owner)
		})
	})
	if err != nil {
		return store.Boundary{}, wrap(ctx, op, err)
	}
	if stored == nil {
		if owner == nil {
			return store.Boundary{}, withOp(memerr.CodeThreadNotFound, op, "thread not found")
		}
		return store.Boundary{}, withOp(memerr.CodeResourceMismatch, op, "thread belongs to another resource")
	}
	b, err := decodeBoundary(stored)
	if err != nil || b == nil {
		return store.Boundary{}, memerr.WrapStorage(op, err)
	}
	return *b, nil
}

// advance runs advanceBoundarySQL.
func (s *Store) advance(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, threadID, resourceID string, cand store.Boundary, stored *[]byte, owner **string) error {
	candJSON, err := encodeBoundary(cand)
	if err != nil {
		return &memerr.Error{Code: memerr.CodeInvalidArgument, Op: "AdvanceBoundary", Msg: "boundary is not JSON", Err: err}
	}
	return q.QueryRow(ctx, s.q.advanceBoundary, threadID, resourceID, cand.CreatedAt,
		int64(cand.MaxTokens), int64(cand.AtMaxRemoveTokens), candJSON, cand.MessageIDs).Scan(stored, owner)
}

// lockThreadUpdateSQL and firstUnseenSQL implement store.ClampBoundary.
const (
	lockThreadUpdateSQL = `SELECT boundary FROM {{schema}}.agentmem_threads WHERE id = $1 FOR UPDATE`
	firstUnseenSQL      = `SELECT min(created_at) FROM {{schema}}.agentmem_messages WHERE thread_id = $1 AND seq > $2`
)

// advanceBoundarySQL: $1 thread, $2 resource, $3 cand createdAt, $4 maxTokens,
// $5 atMaxRemoveTokens, $6 cand as JSONB, $7 cand message ids.
//
// Cases, as in store.MergeBoundary: no boundary or another epoch → cand; a
// newer stored createdAt → kept; an older one → cand; equal → the stored ids
// followed by the new cand ids (first occurrence order), unchanged if none.
const advanceBoundarySQL = `
WITH u AS (
	UPDATE {{schema}}.agentmem_threads t SET boundary = CASE
		WHEN t.boundary IS NULL OR jsonb_typeof(t.boundary) <> 'object'
			OR (t.boundary->>'maxTokens')::bigint IS DISTINCT FROM $4::bigint
			OR (t.boundary->>'atMaxRemoveTokens')::bigint IS DISTINCT FROM $5::bigint
			THEN $6::jsonb
		WHEN (t.boundary->>'createdAt')::timestamptz > $3::timestamptz THEN t.boundary
		WHEN (t.boundary->>'createdAt')::timestamptz < $3::timestamptz THEN $6::jsonb
		ELSE COALESCE((
			SELECT jsonb_set(t.boundary, '{messageIds}',
				COALESCE(NULLIF(t.boundary->'messageIds', 'null'::jsonb), '[]'::jsonb) || jsonb_agg(c.x ORDER BY c.o))
			FROM (SELECT e.x, min(e.o) AS o FROM unnest($7::text[]) WITH ORDINALITY AS e(x, o) GROUP BY e.x) c
			WHERE NOT COALESCE(t.boundary->'messageIds', '[]'::jsonb) ? c.x
			HAVING count(*) > 0
		), t.boundary)
	END
	WHERE t.id = $1 AND t.resource_id = $2
	RETURNING t.boundary
)
SELECT (SELECT boundary FROM u), (SELECT resource_id FROM {{schema}}.agentmem_threads WHERE id = $1)`

// encodeBoundary renders a boundary as stored JSONB, a jsonb parameter
// (jsonArg).
func encodeBoundary(b store.Boundary) (string, error) {
	j, err := json.Marshal(storedBoundary{
		CreatedAt:         b.CreatedAt.UTC().Format(boundaryTimeLayout),
		MessageIDs:        b.MessageIDs,
		MaxTokens:         b.MaxTokens,
		AtMaxRemoveTokens: b.AtMaxRemoveTokens,
	})
	return jsonArg(j), err
}

// decodeBoundary reads threads.boundary; SQL NULL gives nil.
func decodeBoundary(raw []byte) (*store.Boundary, error) {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var sb storedBoundary
	if err := json.Unmarshal(raw, &sb); err != nil {
		return nil, err
	}
	at, err := time.Parse(time.RFC3339Nano, sb.CreatedAt)
	if err != nil {
		return nil, err
	}
	return &store.Boundary{
		CreatedAt:         at.UTC(),
		MessageIDs:        sb.MessageIDs,
		MaxTokens:         sb.MaxTokens,
		AtMaxRemoveTokens: sb.AtMaxRemoveTokens,
	}, nil
}
