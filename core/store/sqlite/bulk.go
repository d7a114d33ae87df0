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
// statement prepared once per Store. A batch that repeats an id or meets a
// stored one (the insert skips it) is rolled back and saved by SaveMessages.
func (s *Store) SaveMessagesBulk(ctx context.Context, msgs []message.Message) ([]message.Message, error) {
	const op = "SaveMessages"
	if !store.DistinctIDs(msgs) {
		return s.SaveMessages(ctx, msgs)
	}
	contents, err := storedContents(op, msgs)
	if err != nil {
		return nil, err
	}
	full, err := s.bulkStatement(ctx)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(msgs)
	err = s.write(ctx, op, func(tx *sql.Tx) error {
		if err := checkOwners(ctx, tx, op, msgs); err != nil {
			return err
		}
		earliest := map[string]int64{}
		for i := range out {
			out[i].CreatedAt = fromMicro(out[i].CreatedAt.UTC().UnixMicro())
			at := out[i].CreatedAt.UnixMicro()
			if e, ok := earliest[out[i].ThreadID]; !ok || at < e {
				earliest[out[i].ThreadID] = at
			}
		}
		if err := insertNew(ctx, tx, tx.StmtContext(ctx, full), out, contents); err != nil {
			return err
		}
		if err := pullBackBoundaries(ctx, tx, earliest); err != nil {
			return err
		}
		return bumpThreads(ctx, tx, slices.Sorted(maps.Keys(earliest)), s.stamp())
	})
	if errors.Is(err, errStored) {
		return s.SaveMessages(ctx, msgs)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// bulkStatement returns the insert of bulkRows rows, prepared on the writer
// the first time (outside a transaction: the writer has one connection).
func (s *Store) bulkStatement(ctx context.Context) (*sql.Stmt, error) {
	s.bulkMu.Lock()
	defer s.bulkMu.Unlock()
	if s.bulkInsert == nil {
		st, err := s.w.PrepareContext(ctx, insertNewSQL(bulkRows))
		if err != nil {
			return nil, withOp("SaveMessages", err)
		}
		s.bulkInsert = st
	}
	return s.bulkInsert, nil
}

// insertNew inserts msgs, skipping none: a stored id fails with errStored.
// It sets each message's Seq. Consecutive messages of one thread (with one
// resource, type and token encoding) go in statements of up to bulkRows
// rows that bind those values once.
func insertNew(ctx context.Context, tx *sql.Tx, full *sql.Stmt, msgs []message.Message, contents []string) error {
	args := make([]any, 0, 4+5*bulkRows)
	for lo := 0; lo < len(msgs); {
		first := &msgs[lo]
		hi := lo + 1
		for hi < len(msgs) && hi-lo < bulkRows && sharedColumns(first, &msgs[hi]) {
			hi++
		}
		part := msgs[lo:hi]
		args = append(args[:0], first.ThreadID, first.ResourceID, first.Type, first.TokenEncoding)
		for i, m := range part {
			args = append(args, m.ID, string(m.Role), contents[lo+i], m.CreatedAt.UnixMicro(), m.Tokens)
		}
		var res sql.Result
		var err error
		if len(part) == bulkRows {
			res, err = full.ExecContext(ctx, args...)
		} else {
			res, err = tx.ExecContext(ctx, insertNewSQL(len(part)), args...)
		}
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

// sharedColumns tells whether a and b can share one insert statement.
func sharedColumns(a, b *message.Message) bool {
	return a.ThreadID == b.ThreadID && a.ResourceID == b.ResourceID && a.Type == b.Type && a.TokenEncoding == b.TokenEncoding
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

// insertNewSQL is the insert of n rows of one thread, resource, type and
// token encoding (parameters 1 to 4) that skips stored ids; each row binds
// its id, role, content, created_at and tokens. The rows of VALUES are
// inserted in order ("WHERE true" parses ON CONFLICT as the upsert clause).
func insertNewSQL(n int) string {
	return `INSERT INTO messages (id, thread_id, resource_id, role, type, content, created_at, tokens, token_encoding)
		SELECT column1, ?1, ?2, column2, ?3, column3, column4, column5, ?4
		FROM (VALUES ` + strings.TrimSuffix(strings.Repeat(`(?, ?, ?, ?, ?), `, n), `, `) + `) WHERE true
		ON CONFLICT (id) DO NOTHING`
}
