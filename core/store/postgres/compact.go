package postgres

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// compactableSQL selects and locks, in a range of heap blocks (a TID range
// scan, so a batch reads only its blocks), the rows whose stored content may
// be longer than its stored shape: those that still carry a v4 mirror
// (written before contents were stored without them) and objects of one
// text part (written before such content was stored as its string). Each
// row's content is parsed once: the LATERAL subquery (kept a subquery by
// OFFSET 0, which the planner does not pull up) casts it, where every
// content::jsonb in the conditions would parse it again.
const compactableSQL = `SELECT m.id, m.content FROM {{schema}}.agentmem_messages m
	CROSS JOIN LATERAL (SELECT m.content::jsonb AS j OFFSET 0) c
	WHERE m.ctid >= $1::text::tid AND m.ctid < $2::text::tid
	AND jsonb_typeof(c.j) = 'object'
	AND (c.j ?| array['content', 'toolInvocations', 'reasoning', 'experimental_attachments']
		OR CASE WHEN jsonb_typeof(c.j->'parts') = 'array'
			THEN jsonb_array_length(c.j->'parts') = 1 AND c.j #>> '{parts,0,type}' = 'text' END)
	FOR UPDATE OF m`

// blocksSQL is the size in blocks of the table named by $1 (a qualified,
// quoted name, passed as a value).
const blocksSQL = `SELECT pg_relation_size($1::text::regclass) / current_setting('block_size')::bigint`

// rowsPerBlock converts CompactContent's batch (rows) into heap blocks; a
// block holds about 20 short messages.
const rowsPerBlock = 16

// CompactContent rewrites messages stored in an earlier, longer shape (with
// the derived v4 mirrors, or one text part as an object) into the stored
// shape (message.MarshalStored), about batch rows per transaction
// (store.DefaultCompactBatch when batch <= 0; a transaction reads
// batch/16 heap blocks, at least one), and returns how many rows it
// rewrote. It is resumable: stopping it (or a cancelled ctx) keeps the
// batches already committed, and running it again rewrites only rows still
// in a longer shape. Rows decode the same before and after; only their
// size changes.
func (s *Store) CompactContent(ctx context.Context, batch int) (int, error) {
	return s.CompactContentWith(ctx, store.CompactOptions{Batch: batch})
}

// CompactContentWith is CompactContent with options: the batch and a
// progress callback, which measures the scan in heap blocks.
func (s *Store) CompactContentWith(ctx context.Context, opts store.CompactOptions) (int, error) {
	n, err := store.CompactWith(ctx, opts, s.compactBatch)
	return n, wrap(ctx, "CompactContent", err)
}

// compactBatch rewrites the rows of the heap blocks from after on and returns
// the rows rewritten, the next block (0 past the table's end) and the
// table's size in blocks. A row whose stored shape it already is (a mirror
// that differs from the parts is kept) is left alone, so rewritten rows,
// which move to later blocks, end the scan.
func (s *Store) compactBatch(ctx context.Context, after int64, batch int) (n int, next, size int64, err error) {
	blocks := max(int64(batch/rowsPerBlock), 1)
	quoted := quoteIdent(s.schema)
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, blocksSQL, s.q.messages).Scan(&size); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, withSchema(compactableSQL, quoted),
			fmt.Sprintf("(%d,0)", after), fmt.Sprintf("(%d,0)", after+blocks))
		if err != nil {
			return err
		}
		ids, contents := []string{}, []string{}
		for rows.Next() {
			var id string
			var raw []byte
			if err := rows.Scan(&id, &raw); err != nil {
				rows.Close()
				return err
			}
			var c message.Content
			if err := json.Unmarshal(raw, &c); err != nil {
				rows.Close()
				return memerr.WrapStorage("CompactContent", fmt.Errorf("decode content of message %q: %w", id, err))
			}
			b, err := message.MarshalStored(c)
			if err != nil {
				rows.Close()
				return err
			}
			if !bytes.Equal(b, raw) {
				ids, contents = append(ids, id), append(contents, string(b))
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if after+blocks < size {
			next = after + blocks
		}
		if len(ids) == 0 {
			return nil
		}
		n = len(ids)
		_, err = tx.Exec(ctx, withSchema(`UPDATE {{schema}}.agentmem_messages m SET content = u.content
			FROM unnest($1::text[], $2::text[]) AS u(id, content) WHERE m.id = u.id`, quoted), ids, contents)
		return err
	})
	if err != nil {
		return 0, 0, 0, err
	}
	return n, next, size, nil
}
