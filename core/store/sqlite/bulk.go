package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// bulkRows is the number of rows of one bulk INSERT statement (5
// variables each, far below SQLite's limit of 32,766): the statement's cost
// in the driver is shared by more rows than SaveMessages' upserts.
const bulkRows = 500

// errStored stops a bulk save that meets a stored id.
var errStored = errors.New("sqlite: a message of the batch is stored")

// SaveMessagesBulk implements store.BulkSaver: a batch of distinct ids in
// existing threads of their resources is written with plain inserts (no
// lookup of stored rows, no upsert, no RETURNING: a row's Seq follows from
// the last inserted rowid, since AUTOINCREMENT numbers the rows of one
// statement consecutively in the exclusive write transaction), by a
// statement prepared once per Store (prepared.go). A batch that repeats an
// id or meets a stored one (the insert skips it) is rolled back and saved
// by SaveMessages.
func (s *Store) SaveMessagesBulk(ctx context.Context, msgs []message.Message) ([]message.Message, error) {
	const op = "SaveMessages"
	if !store.DistinctIDs(msgs) {
		return s.SaveMessages(ctx, msgs)
	}
	contents, err := storedContents(op, msgs)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(msgs)
	err = s.writePrepared(ctx, op, saveStatements(msgs, nil, insertNewSQL), func(tx querier) error {
		if err := checkOwners(ctx, tx, op, msgs); err != nil {
			return err
		}
		return s.saveNew(ctx, tx, out, contents)
	})
	if errors.Is(err, errStored) {
		return s.SaveMessages(ctx, msgs)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// saveNew inserts msgs, none of them stored and no id twice, in threads
// checkOwners accepted: it sets each one's Seq and stored CreatedAt, pulls
// back the boundaries of their threads and bumps the threads' updatedAt.
// A stored id fails it with errStored.
func (s *Store) saveNew(ctx context.Context, tx querier, msgs []message.Message, contents []string) error {
	earliest := map[string]int64{}
	for i := range msgs {
		msgs[i].CreatedAt = fromMicro(msgs[i].CreatedAt.UTC().UnixMicro())
		at := msgs[i].CreatedAt.UnixMicro()
		if e, ok := earliest[msgs[i].ThreadID]; !ok || at < e {
			earliest[msgs[i].ThreadID] = at
		}
	}
	if err := insertNew(ctx, tx, msgs, contents); err != nil {
		return err
	}
	if err := pullBackBoundaries(ctx, tx, earliest); err != nil {
		return err
	}
	return bumpThreads(ctx, tx, slices.Sorted(maps.Keys(earliest)), s.stamp())
}

// insertNew inserts msgs, skipping none: a stored id fails with errStored.
// It sets each message's Seq. Consecutive messages of one thread (with one
// resource, type and token encoding) go in statements of up to bulkRows
// rows that bind those values once.
func insertNew(ctx context.Context, tx querier, msgs []message.Message, contents []string) error {
	args := make([]any, 0, 4+5*min(len(msgs), bulkRows))
	for lo := 0; lo < len(msgs); {
		hi := sharedRun(msgs, lo, bulkRows)
		part := msgs[lo:hi]
		args = sharedArgs(args[:0], part, contents[lo:hi])
		res, err := tx.ExecContext(ctx, insertNewSQL.text(len(part)), args...)
		if err != nil {
			return err
		}
		if err := setSeqs(res, part); err != nil {
			return err
		}
		lo = hi
	}
	return nil
}

// sharedRun returns the end of the run of messages from lo, at most limit,
// that share a thread, resource, type and token encoding.
func sharedRun(msgs []message.Message, lo, limit int) int {
	first := &msgs[lo]
	hi := lo + 1
	for hi < len(msgs) && hi-lo < limit && sharedColumns(first, &msgs[hi]) {
		hi++
	}
	return hi
}

// sharedColumns tells whether a and b can share one insert statement.
func sharedColumns(a, b *message.Message) bool {
	return a.ThreadID == b.ThreadID && a.ResourceID == b.ResourceID && a.Type == b.Type && a.TokenEncoding == b.TokenEncoding
}

// sharedArgs appends the arguments of sharedRows for part, a run of
// messages sharing a thread, resource, type and token encoding.
func sharedArgs(args []any, part []message.Message, contents []string) []any {
	first := &part[0]
	args = append(args, first.ThreadID, first.ResourceID, first.Type, first.TokenEncoding)
	for i := range part {
		m := &part[i]
		args = append(args, m.ID, string(m.Role), contents[i], m.CreatedAt.UnixMicro(), m.Tokens)
	}
	return args
}

// setSeqs sets the Seq of the rows one insert wrote, or fails with
// errStored when it skipped one.
func setSeqs(res sql.Result, part []message.Message) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n != int64(len(part)) {
		return errStored
	}
	last, err := res.LastInsertId()
	if err != nil {
		return err
	}
	for i := range part {
		part[i].Seq = last - int64(len(part)-1-i)
	}
	return nil
}

// insertNewSQL is the insert of n rows in sharedRows' shape that skips
// stored ids.
var insertNewSQL = newSizedSQL(bulkRows, func(n int) string {
	return `INSERT INTO messages (id, thread_id, resource_id, role, type, content, created_at, tokens, token_encoding)
		` + sharedRows(n) + `
		ON CONFLICT (id) DO NOTHING`
})

// sharedRows selects n rows of one thread, resource, type and token
// encoding (parameters 1 to 4), each binding its id, role, content,
// created_at and tokens, in the column order of messages. The rows of
// VALUES are inserted in order ("WHERE true" parses a following ON CONFLICT
// as the upsert clause).
func sharedRows(n int) string {
	return `SELECT column1, ?1, ?2, column2, ?3, column3, column4, column5, ?4
		FROM (VALUES ` + strings.TrimSuffix(strings.Repeat(`(?, ?, ?, ?, ?), `, n), `, `) + `) WHERE true`
}
