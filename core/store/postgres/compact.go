package postgres

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// mirroredSQL selects and locks, after a seq, stored content that still
// carries a v4 mirror (rows written before contents were stored without them).
const mirroredSQL = `SELECT seq, content FROM {{schema}}.messages
	WHERE seq > $1 AND jsonb_typeof(content) = 'object'
	AND content ?| array['content', 'toolInvocations', 'reasoning', 'experimental_attachments']
	ORDER BY seq LIMIT $2 FOR UPDATE`

// CompactContent rewrites messages stored with the derived v4 mirrors into
// the stored shape (message.MarshalStored), batch rows per transaction
// (store.DefaultCompactBatch when batch <= 0), and returns how many rows it
// rewrote. It is resumable: stopping it (or a cancelled ctx) keeps the
// batches already committed, and running it again finds only rows still
// carrying a mirror. Rows decode the same before and
// after; only their size changes.
func (s *Store) CompactContent(ctx context.Context, batch int) (int, error) {
	n, err := store.Compact(ctx, batch, s.compactBatch)
	return n, wrap(ctx, "CompactContent", err)
}

// compactBatch rewrites one batch after seq and returns the rows rewritten
// and the last seq seen (0 when none was left).
func (s *Store) compactBatch(ctx context.Context, after int64, batch int) (n int, last int64, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, withSchema(mirroredSQL, quoteIdent(s.schema)), after, batch)
		if err != nil {
			return err
		}
		seqs, contents := []int64{}, []string{}
		for rows.Next() {
			var seq int64
			var raw []byte
			if err := rows.Scan(&seq, &raw); err != nil {
				rows.Close()
				return err
			}
			var c message.Content
			if err := json.Unmarshal(raw, &c); err != nil {
				rows.Close()
				return memerr.WrapStorage("CompactContent", fmt.Errorf("decode content of row %d: %w", seq, err))
			}
			b, err := message.MarshalStored(c)
			if err != nil {
				rows.Close()
				return err
			}
			seqs, contents = append(seqs, seq), append(contents, string(b))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(seqs) == 0 {
			return nil
		}
		_, err = tx.Exec(ctx, withSchema(`UPDATE {{schema}}.messages m SET content = u.content::jsonb
			FROM unnest($1::bigint[], $2::text[]) AS u(seq, content) WHERE m.seq = u.seq`, quoteIdent(s.schema)), seqs, contents)
		n, last = len(seqs), seqs[len(seqs)-1]
		return err
	})
	if err != nil {
		return 0, 0, err
	}
	return n, last, nil
}
