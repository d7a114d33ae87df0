package postgres

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

var _ store.BulkSaver = (*Store)(nil)

// errNotBulk stops a bulk save whose batch SaveMessages must handle: a
// thread missing or of another resource (SaveMessages refuses it with the
// right error) or an id already stored.
var errNotBulk = errors.New("postgres: batch is not for the bulk path")

// bulkCols are the columns SaveMessagesBulk copies.
var bulkCols = []string{"id", "thread_id", "resource_id", "role", "type", "content", "created_at", "tokens", "token_encoding"}

// SaveMessagesBulk implements store.BulkSaver. A batch of distinct ids is
// written in one transaction: its threads are locked in id order (as
// save_messages locks them, so saves, moves and deletes still serialise),
// checked for existence and ownership, the rows go in with COPY in id order
// (save_messages' insert order, so Seq comes out the same), their Seq is
// read back and the threads are bumped (boundaries pulled back) as
// save_messages does. The server's work per row is a plain insert instead
// of the function's set operations. A batch that repeats an id, names a
// missing or foreign thread, or meets a stored id (COPY fails on the
// primary key, rolling everything back) is saved by SaveMessages instead.
func (s *Store) SaveMessagesBulk(ctx context.Context, msgs []message.Message) ([]message.Message, error) {
	const op = "SaveMessages"
	if !store.DistinctIDs(msgs) {
		return s.SaveMessages(ctx, msgs)
	}
	rows, err := bulkRowsOf(op, msgs)
	if err != nil {
		return nil, err
	}
	var seqs map[string]int64
	err = retry(ctx, func() (err error) {
		seqs, err = s.copyMessages(ctx, msgs, rows)
		return err
	})
	if errors.Is(err, errNotBulk) {
		return s.SaveMessages(ctx, msgs)
	}
	if err != nil {
		return nil, wrap(ctx, op, err)
	}
	out := make([]message.Message, len(msgs))
	for i := range msgs {
		out[i] = msgs[i].Clone()
		out[i].CreatedAt, out[i].Seq = utc(msgs[i].CreatedAt), seqs[msgs[i].ID]
	}
	return out, nil
}

// bulkRowsOf returns the rows of msgs to copy, in id order.
func bulkRowsOf(op string, msgs []message.Message) ([][]any, error) {
	order := make([]int, len(msgs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(msgs[a].ID, msgs[b].ID) })
	rows := make([][]any, len(msgs))
	for k, i := range order {
		m := &msgs[i]
		content, err := message.MarshalStored(m.Content)
		if err != nil {
			return nil, &memerr.Error{Code: memerr.CodeInvalidMessage, Op: op, Msg: "message " + strconv.Quote(m.ID) + ": content is not JSON", Err: err}
		}
		rows[k] = []any{m.ID, m.ThreadID, m.ResourceID, string(m.Role), m.Type, string(content), utc(m.CreatedAt), int32(m.Tokens), m.TokenEncoding}
	}
	return rows, nil
}

// copyMessages runs the bulk transaction and returns the Seq of each id.
func (s *Store) copyMessages(ctx context.Context, msgs []message.Message, rows [][]any) (map[string]int64, error) {
	var seqs map[string]int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		first, err := s.lockOwnedThreads(ctx, tx, msgs)
		if err != nil {
			return err
		}
		_, err = tx.CopyFrom(ctx, pgx.Identifier{s.schema, "messages"}, bulkCols, pgx.CopyFromRows(rows))
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "23505" && pgErr.ConstraintName == "messages_pkey" {
			return errNotBulk
		}
		if err != nil {
			return err
		}
		if seqs, err = readSeqs(ctx, tx, s.bulkSQL(bulkSeqSQL), rows); err != nil {
			return err
		}
		ids, firsts := make([]string, 0, len(first)), make([]time.Time, 0, len(first))
		for id, at := range first {
			ids, firsts = append(ids, id), append(firsts, at)
		}
		_, err = tx.Exec(ctx, s.bulkSQL(bulkBumpSQL), ids, firsts, now())
		return err
	})
	return seqs, err
}

// lockOwnedThreads locks the threads of msgs in id order and returns the
// earliest CreatedAt of the batch per thread; errNotBulk when a thread is
// missing or belongs to another resource.
func (s *Store) lockOwnedThreads(ctx context.Context, tx pgx.Tx, msgs []message.Message) (map[string]time.Time, error) {
	first := map[string]time.Time{}
	for i := range msgs {
		at := utc(msgs[i].CreatedAt)
		if f, ok := first[msgs[i].ThreadID]; !ok || at.Before(f) {
			first[msgs[i].ThreadID] = at
		}
	}
	ids := make([]string, 0, len(first))
	for id := range first {
		ids = append(ids, id)
	}
	rows, err := tx.Query(ctx, s.bulkSQL(bulkLockSQL), ids)
	if err != nil {
		return nil, err
	}
	owner := map[string]string{}
	for rows.Next() {
		var id, res string
		if err := rows.Scan(&id, &res); err != nil {
			rows.Close()
			return nil, err
		}
		owner[id] = res
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range msgs {
		if res, ok := owner[msgs[i].ThreadID]; !ok || res != msgs[i].ResourceID {
			return nil, errNotBulk
		}
	}
	return first, nil
}

// readSeqs reads the Seq of the copied rows.
func readSeqs(ctx context.Context, tx pgx.Tx, query string, rows [][]any) (map[string]int64, error) {
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r[0].(string)
	}
	res, err := tx.Query(ctx, query, ids)
	if err != nil {
		return nil, err
	}
	defer res.Close()
	seqs := make(map[string]int64, len(ids))
	for res.Next() {
		var id string
		var seq int64
		if err := res.Scan(&id, &seq); err != nil {
			return nil, err
		}
		seqs[id] = seq
	}
	return seqs, res.Err()
}

// The statements of SaveMessagesBulk: the thread lock (the order
// save_messages and DeleteMessages lock in), the Seq read-back, and the bump
// of save_messages (updated_at, boundary pulled back before the earliest
// inserted message).
const (
	bulkLockSQL = `SELECT id, resource_id FROM {{schema}}.threads WHERE id = ANY ($1::text[]) ORDER BY id FOR UPDATE`
	bulkSeqSQL  = `SELECT id, seq FROM {{schema}}.messages WHERE id = ANY ($1::text[])`
	bulkBumpSQL = `UPDATE {{schema}}.threads t SET updated_at = $3, boundary = {{schema}}.pulled_back(t.boundary, f.first)
		FROM unnest($1::text[], $2::timestamptz[]) AS f(id, first) WHERE t.id = f.id`
)

func (s *Store) bulkSQL(tmpl string) string { return withSchema(tmpl, quoteIdent(s.schema)) }
