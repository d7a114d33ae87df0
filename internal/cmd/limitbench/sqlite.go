package main

import (
	"context"
	"database/sql"
	"os"
	"strings"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// sqliteEngine writes with one prepared INSERT of batchSize rows per
// transaction (WAL, synchronous NORMAL, as agentmem's store opens files)
// and reads by keyset on (thread_id, created_at, seq).
type sqliteEngine struct {
	db     *sql.DB
	insert *sql.Stmt
	newest *sql.Stmt
}

func openSQLite(ctx context.Context, path string) (*sqliteEngine, error) {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		_ = os.Remove(path + suffix)
	}
	db, err := sql.Open("sqlite", path+"?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, `CREATE TABLE messages (
		seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, thread_id TEXT NOT NULL, role TEXT NOT NULL,
		content TEXT NOT NULL, created_at INTEGER NOT NULL, tokens INTEGER NOT NULL);
		CREATE INDEX messages_thread_created_seq ON messages (thread_id, created_at, seq)`); err != nil {
		return nil, err
	}
	e := &sqliteEngine{db: db}
	values := strings.Repeat("(?, ?, ?, ?, ?, ?),", batchSize)
	if e.insert, err = db.PrepareContext(ctx, `INSERT INTO messages (id, thread_id, role, content, created_at, tokens) VALUES `+values[:len(values)-1]); err != nil {
		return nil, err
	}
	if e.newest, err = db.PrepareContext(ctx, `SELECT seq, id, role, content, created_at, tokens FROM messages
		WHERE thread_id = ? ORDER BY created_at DESC, seq DESC LIMIT ?`); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *sqliteEngine) save(ctx context.Context, batch []row) error {
	tx, err := e.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	args := make([]any, 0, 6*len(batch))
	for _, r := range batch {
		args = append(args, r.id, threadID, r.role, r.content, r.createdAt.UnixMicro(), r.tokens)
	}
	if len(batch) == batchSize {
		_, err = tx.StmtContext(ctx, e.insert).ExecContext(ctx, args...)
	} else {
		values := strings.Repeat("(?, ?, ?, ?, ?, ?),", len(batch))
		_, err = tx.ExecContext(ctx, `INSERT INTO messages (id, thread_id, role, content, created_at, tokens) VALUES `+values[:len(values)-1], args...)
	}
	if err != nil {
		return err
	}
	return tx.Commit()
}

// read returns the newest rows (at most limit) while their tokens fit max
// (max < 0: no budget), stepping the cursor only as far as needed.
func (e *sqliteEngine) read(ctx context.Context, limit, max int) (int, error) {
	rs, err := e.newest.QueryContext(ctx, threadID, limit)
	if err != nil {
		return 0, err
	}
	defer rs.Close()
	var got []row
	used := 0
	for rs.Next() {
		var r row
		var seq, created int64
		if err := rs.Scan(&seq, &r.id, &r.role, &r.content, &created, &r.tokens); err != nil {
			return 0, err
		}
		if max >= 0 && used+r.tokens > max {
			break
		}
		used += r.tokens
		got = append(got, r)
	}
	return len(got), rs.Err()
}

func (e *sqliteEngine) window(ctx context.Context, max int) (int, error) { return e.read(ctx, -1, max) }
func (e *sqliteEngine) last(ctx context.Context, n int) (int, error)     { return e.read(ctx, n, -1) }
func (e *sqliteEngine) close() error                                     { return e.db.Close() }
