package postgres

import (
	"context"
	"slices"
	"strings"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

var _ store.JointSaver = (*Store)(nil)

// Database implements store.JointSaver: the identity of the database and
// role the store's pool reaches (pgident), so that a pgvector store on
// another pool of the same database as the same role is recognised; the
// pool itself when that could not be read.
func (s *Store) Database() any {
	if s.db != "" {
		return s.db
	}
	return s.pool
}

// SaveMessagesWith implements store.JointSaver for the batches saveNew
// takes (one new message, or new messages of distinct ids into one thread);
// other batches get memerr.ErrUnsupported. The messages' statement is the joint variant of
// saveNew's (jointSQL), which fails instead of inserting nothing; also
// follows it, and the statements are sent as one extended-protocol batch
// ending in a single Sync. Statements sent so run in one implicit
// transaction, committed at the Sync, and an error in any of them rolls
// back all of them and skips the rest (PostgreSQL documentation, "Frontend/
// Backend Protocol", "Extended Query" and "Pipelining": protocol-flow.html,
// sections 55.2.3 and 55.2.4 in version 15). So the batch is one round trip,
// and a failure writes nothing: a stored id (agentmem_messages_pkey), a thread that
// is missing or another resource's, a message at or before the boundary, a
// failing statement of also.
func (s *Store) SaveMessagesWith(ctx context.Context, msgs []message.Message, also []store.Statement) (_ []message.Message, err error) {
	const op = "SaveMessages"
	defer unconfirmed(ctx, op, &err)
	b, err := newSaveBatch(op, msgs)
	if err != nil {
		return nil, err
	}
	defer b.release()
	sql, w := b.newStatement(s.q.saveOneJoint, s.q.saveNewJoint)
	if w == nil || b.readBefore() {
		return nil, memerr.Errorf(memerr.CodeUnsupported, op, "a joint save takes new messages of distinct ids into one thread")
	}
	defer w.release()
	rows := newRows{b: b}
	if err := s.execJoint(ctx, sql, w.values(), rows.add, also); err != nil {
		return nil, wrap(ctx, op, err)
	}
	// The statement inserts every message or fails, so the rows are the
	// batch's ids; a plan that reorders them is read by id.
	seq := make(map[string]int64, len(rows.ids))
	for i, id := range rows.ids {
		seq[id] = rows.seqs[i]
	}
	out := slices.Clone(msgs)
	for i := range out {
		n, ok := seq[out[i].ID]
		if !ok || rows.bad {
			return nil, memerr.Errorf(memerr.CodeStorage, op, "message %q was not returned by the insert", out[i].ID)
		}
		out[i].CreatedAt, out[i].Seq = b.created[i], n
	}
	return out, nil
}

// jointSQL turns saveOneMessageSQL or saveNewMessagesSQL into its joint
// variant: the messages are joined to the thread's UPDATE with a LEFT JOIN,
// so that when it matches no thread (missing, another resource's, or a
// message at or before its boundary) the INSERT fails on thread_id's NOT
// NULL constraint, aborting the transaction, instead of inserting nothing
// while the statements after it commit.
func jointSQL(sql string) string {
	r := strings.NewReplacer(
		"FROM thr\nRETURNING", "FROM (SELECT) AS one LEFT JOIN thr ON true\nRETURNING",
		"FROM thr, unnest(", "FROM unnest(",
		"AS u(id, role, type, content, created, tokens, enc)\n", "AS u(id, role, type, content, created, tokens, enc) LEFT JOIN thr ON true\n")
	return r.Replace(sql)
}

// execJoint sends sql (binary parameters vals, each row's values passed to
// row) and also as one batch with one Sync on a connection of the pool:
// prepared statements when the pool caches them, else unnamed ones whose
// arguments are sent as pgx's QueryExecModeExec sends them. The pool's
// tracer sees the batch as pgx's SendBatch shows it, when it is a
// pgx.BatchTracer.
func (s *Store) execJoint(ctx context.Context, sql string, vals [][]byte, row func([][]byte), also []store.Statement) (err error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	c := conn.Conn()
	bt, _ := s.tracer.(pgx.BatchTracer)
	if bt != nil {
		traced := &pgx.Batch{}
		traced.Queue(sql)
		for _, st := range also {
			traced.Queue(st.SQL, st.Args...)
		}
		ctx = bt.TraceBatchStart(ctx, c, pgx.TraceBatchStartData{Batch: traced})
		defer func() { bt.TraceBatchEnd(ctx, c, pgx.TraceBatchEndData{Err: err}) }()
	}
	batch := &pgconn.Batch{}
	formats := []int16{pgx.BinaryFormatCode}
	if err := s.queue(ctx, c, batch, sql, func(*pgconn.StatementDescription) ([][]byte, []int16, []int16, error) {
		return vals, formats, formats, nil
	}); err != nil {
		return err
	}
	var eqb pgx.ExtendedQueryBuilder
	for _, st := range also {
		err := s.queue(ctx, c, batch, st.SQL, func(sd *pgconn.StatementDescription) ([][]byte, []int16, []int16, error) {
			err := eqb.Build(c.TypeMap(), sd, st.Args)
			// The batch keeps the result formats; the builder reuses its slice.
			return eqb.ParamValues, eqb.ParamFormats, slices.Clone(eqb.ResultFormats), err
		})
		if err != nil {
			return err
		}
	}
	mrr := c.PgConn().ExecBatch(ctx, batch)
	for i := 0; mrr.NextResult(); i++ {
		rr := mrr.ResultReader()
		for i == 0 && rr.NextRow() {
			row(rr.Values())
		}
		tag, err := rr.Close()
		if bt != nil {
			q := pgx.TraceBatchQueryData{SQL: sql, CommandTag: tag, Err: err}
			if i > 0 {
				q.SQL, q.Args = also[i-1].SQL, also[i-1].Args
			}
			bt.TraceBatchQuery(ctx, c, q)
		}
	}
	return mrr.Close()
}

// queue adds sql to batch, prepared (once per connection) when the pool
// prepares statements, else unnamed; params encodes its parameters for the
// statement's description (nil when unnamed).
func (s *Store) queue(ctx context.Context, c *pgx.Conn, batch *pgconn.Batch, sql string,
	params func(*pgconn.StatementDescription) (vals [][]byte, formats, results []int16, err error)) error {
	if !s.prepares {
		vals, formats, results, err := params(nil)
		if err == nil {
			batch.ExecParams(sql, vals, nil, formats, results)
		}
		return err
	}
	sd, err := c.Prepare(ctx, sql, sql)
	if err != nil {
		return err
	}
	vals, formats, results, err := params(sd)
	if err == nil {
		batch.ExecStatement(sd, vals, formats, results)
	}
	return err
}
