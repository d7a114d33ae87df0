package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// compactableSQL selects, after a seq, stored content that may be longer
// than its stored shape: rows that still carry a v4 mirror (written before
// contents were stored without them) and objects of one text part (written
// before such content was stored as its string).
const compactableSQL = `SELECT seq, content FROM messages WHERE seq > ? AND CASE WHEN json_valid(content) THEN
	json_type(content, '$.content') IS NOT NULL OR json_type(content, '$.toolInvocations') IS NOT NULL OR
	json_type(content, '$.reasoning') IS NOT NULL OR json_type(content, '$.experimental_attachments') IS NOT NULL OR
	(json_array_length(content, '$.parts') = 1 AND json_extract(content, '$.parts[0].type') = 'text')
	ELSE 0 END ORDER BY seq LIMIT ?`

// CompactContent rewrites messages stored in an earlier, longer shape (with
// the derived v4 mirrors, or one text part as an object) into the stored
// shape (message.MarshalStored), batch rows per transaction
// (store.DefaultCompactBatch when batch <= 0), and returns how many rows it
// rewrote. It is resumable: stopping it (or a cancelled ctx) keeps the
// batches already committed, and running it again rewrites only rows still
// in a longer shape. Rows decode the same before and after; only their
// size changes.
func (s *Store) CompactContent(ctx context.Context, batch int) (int, error) {
	return s.CompactContentWith(ctx, store.CompactOptions{Batch: batch})
}

// CompactContentWith is CompactContent with options: the batch and a
// progress callback, which measures the scan in seq.
func (s *Store) CompactContentWith(ctx context.Context, opts store.CompactOptions) (int, error) {
	return store.CompactWith(ctx, opts, s.compactBatch)
}

// compactBatch rewrites one batch after seq and returns the rows rewritten,
// the last seq seen (0 when none was left) and the table's last seq.
func (s *Store) compactBatch(ctx context.Context, after int64, batch int) (n int, last, end int64, err error) {
	const op = "CompactContent"
	err = s.write(ctx, op, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(max(seq), 0) FROM messages`).Scan(&end); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, compactableSQL, after, batch)
		if err != nil {
			return err
		}
		type row struct {
			seq     int64
			content []byte
		}
		var found []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.seq, &r.content); err != nil {
				rows.Close()
				return err
			}
			found = append(found, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		var update *sql.Stmt // prepared once a row of the batch needs it
		for _, r := range found {
			var c message.Content
			if err := json.Unmarshal(r.content, &c); err != nil {
				return memerr.WrapStorage(op, fmt.Errorf("decode content of row %d: %w", r.seq, err))
			}
			b, err := message.MarshalStored(c)
			if err != nil {
				return err
			}
			last = r.seq
			if bytes.Equal(b, r.content) { // a text part with more to it, say
				continue
			}
			if update == nil {
				if update, err = tx.PrepareContext(ctx, `UPDATE messages SET content = ? WHERE seq = ?`); err != nil {
					return err
				}
				defer update.Close()
			}
			if _, err := update.ExecContext(ctx, string(b), r.seq); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	if err != nil {
		return 0, 0, 0, err
	}
	return n, last, end, nil
}
