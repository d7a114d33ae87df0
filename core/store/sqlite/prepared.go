package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"sync"

	"github.com/agentmem/agentmem/core/message"
)

// Compiling a statement was a quarter of a two-message save and 15% of an
// 8,000-token Begin: the statements of saves and of the turn's reads are
// prepared once per Store, on the writer or the readers, and run in each
// transaction through tx.StmtContext (which prepares a statement once per
// connection of the pool). They are prepared outside the transaction,
// since the writer's one connection is the transaction's. A cache keeps at
// most maxPrepared statements: the texts come from a bounded set (saves of
// up to smallSave messages, full-size multi-row writes, the filters of a
// history read), and a text past the bound runs unprepared.

// maxPrepared bounds the statements a stmtCache keeps.
const maxPrepared = 64

// stmtCache holds statements prepared on db, by text. It is safe for
// concurrent use.
type stmtCache struct {
	db    *sql.DB
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
}

// get returns the cached statements of queries, preparing those not cached
// while there is room; a query past the bound is left out.
func (c *stmtCache) get(ctx context.Context, queries ...string) (map[string]*sql.Stmt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]*sql.Stmt, len(queries))
	for _, q := range queries {
		st, ok := c.stmts[q]
		if !ok {
			if len(c.stmts) >= maxPrepared {
				continue
			}
			var err error
			if st, err = c.db.PrepareContext(ctx, q); err != nil {
				return nil, err
			}
			if c.stmts == nil {
				c.stmts = map[string]*sql.Stmt{}
			}
			c.stmts[q] = st
		}
		out[q] = st
	}
	return out, nil
}

// close closes the cached statements; get prepares them again.
func (c *stmtCache) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var err error
	for _, st := range c.stmts {
		err = errors.Join(err, st.Close())
	}
	c.stmts = nil
	return err
}

// smallSave is the largest save whose every statement is kept prepared.
const smallSave = 4

// sizedSQL is a statement text built for a number of rows or ids, built
// once for the sizes whose statements are kept prepared (up to smallSave,
// and full) and on each call for the others.
type sizedSQL struct {
	build func(n int) string
	full  int
	texts map[int]string
}

func newSizedSQL(full int, build func(n int) string) *sizedSQL {
	q := &sizedSQL{build: build, full: full, texts: map[int]string{full: build(full)}}
	for n := 1; n <= smallSave; n++ {
		q.texts[n] = build(n)
	}
	return q
}

// text returns the statement for n.
func (q *sizedSQL) text(n int) string {
	if t, ok := q.texts[n]; ok {
		return t
	}
	return q.build(n)
}

// querier runs a transaction's statements: a *sql.Tx, or a preparedTx
// that runs some of them prepared.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// preparedTx is a transaction that runs the statements of stmts prepared,
// and compiles the others.
type preparedTx struct {
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
}

func (p preparedTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := p.stmts[query]; st != nil {
		return p.tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	return p.tx.QueryContext(ctx, query, args...)
}

func (p preparedTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := p.stmts[query]; st != nil {
		return p.tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return p.tx.QueryRowContext(ctx, query, args...)
}

func (p preparedTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := p.stmts[query]; st != nil {
		return p.tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return p.tx.ExecContext(ctx, query, args...)
}

// preparedDB runs single statements outside a transaction, those of stmts
// prepared.
type preparedDB struct {
	db    *sql.DB
	stmts map[string]*sql.Stmt
}

func (p preparedDB) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := p.stmts[query]; st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return p.db.QueryRowContext(ctx, query, args...)
}

// writePrepared runs fn in a write transaction (see write) whose
// statements of queries run prepared.
func (s *Store) writePrepared(ctx context.Context, op string, queries []string, fn func(q querier) error) error {
	stmts, err := s.wstmts.get(ctx, queries...)
	if err != nil {
		return withOp(op, err)
	}
	return s.write(ctx, op, func(tx *sql.Tx) error { return fn(preparedTx{tx: tx, stmts: stmts}) })
}

// readPrepared runs fn in a read transaction (see read) whose statements
// of queries run prepared.
func (s *Store) readPrepared(ctx context.Context, op string, queries []string, fn func(q querier) error) error {
	stmts, err := s.rstmts.get(ctx, queries...)
	if err != nil {
		return withOp(op, err)
	}
	return s.read(ctx, op, func(tx *sql.Tx) error { return fn(preparedTx{tx: tx, stmts: stmts}) })
}

// saveStatements lists the statements of a save of msgs worth keeping
// prepared: those of one text whatever the size, the multi-row ones of a
// small save, and the full-size ones of a large one. ids are the distinct
// ids the save looks up (none for a bulk save); rowsSQL is its multi-row
// write. A small save split into runs (over threads, say) writes its
// shorter runs unprepared.
func saveStatements(msgs []message.Message, ids []string, rowsSQL *sizedSQL) []string {
	queries := []string{threadOwnerSQL, getThreadSQL, bumpThreadsSQL.text(1)}
	if n := len(ids); n > 0 && (n <= smallSave || n >= maxIn) {
		queries = append(queries, storedOwnersSQL.text(min(n, maxIn)))
	}
	if n := len(msgs); n > 0 && (n <= smallSave || n >= rowsSQL.full) {
		queries = append(queries, rowsSQL.text(min(n, rowsSQL.full)))
	}
	return queries
}
