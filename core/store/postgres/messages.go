package postgres

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

const messageCols = "id, thread_id, resource_id, role, type, content, created_at, tokens, token_encoding, seq"

// SaveMessages upserts the batch in one round trip: save_messages locks the
// threads involved in id order (the target threads and the old threads of
// moved messages), refuses the whole batch when a thread is missing or owned
// by another resource, upserts the messages without touching created_at or
// seq, and bumps updated_at of every locked thread. The common saves skip
// most of that work: a batch of distinct ids into one thread goes through
// saveNewMessagesSQL, and a single message through saveOneMessageSQL, each
// one statement that inserts every message or nothing; save_messages is a
// second round trip only when an id is stored already (the insert fails on
// agentmem_messages_pkey) or the thread is missing or another resource's. A batch
// holding a message read from a store goes to save_messages at once
// (readBefore).
func (s *Store) SaveMessages(ctx context.Context, msgs []message.Message) (_ []message.Message, err error) {
	const op = "SaveMessages"
	defer unconfirmed(ctx, op, &err)
	b, err := newSaveBatch(op, msgs)
	if err != nil {
		return nil, err
	}
	defer b.release()
	var res saveResult
	fresh := !b.readBefore() // no id of the batch is known to be stored
	err = retry(ctx, func() error {
		if fresh {
			done, err := b.saveNew(ctx, s, &res)
			if done || (err != nil && !storedID(err)) {
				return err
			}
			fresh = false
		}
		return b.saveAll(ctx, s, &res)
	})
	if err != nil {
		return nil, wrap(ctx, op, err)
	}
	if res.refused != nil {
		return nil, res.refused
	}
	out := slices.Clone(msgs)
	for i := range out {
		if res.seqs != nil {
			out[i].CreatedAt, out[i].Seq = b.created[i], res.seqs[i]
			continue
		}
		st, ok := res.saved[out[i].ID]
		if !ok {
			return nil, memerr.Errorf(memerr.CodeStorage, op, "message %q was not returned by the upsert", out[i].ID)
		}
		out[i].CreatedAt, out[i].Seq = st.createdAt, st.seq
	}
	return out, nil
}

// readBefore reports whether a message of the batch carries a Seq, so was
// read from a store: most likely it is stored, and the batch is an update
// (a client's tool result merged into its stored message, an edit). Such a
// batch goes straight to save_messages: the insert-first statements would
// fail on agentmem_messages_pkey, which PostgreSQL logs as an ERROR (with the
// statement) and which leaves the rows inserted before it dead. A stored
// id given without its Seq still takes that path, correctly, at that cost.
func (b *saveBatch) readBefore() bool {
	return slices.ContainsFunc(b.msgs, func(m message.Message) bool { return m.Seq != 0 })
}

// storedID reports whether err is the unique violation of an inserted id
// that is stored already.
func storedID(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505" && pgErr.ConstraintName == "agentmem_messages_pkey"
}

// saveBatch is a batch with its contents encoded as stored; the save
// statements' parameter arrays are written from it (see saveparams.go).
type saveBatch struct {
	msgs     []message.Message
	contents [][]byte    // stored contents, slices of enc
	enc      *[]byte     // the contents' buffer, from encBuffers
	created  []time.Time // createdAt to store: a repeated id's first
	distinct bool        // no id repeats
	at       time.Time
	size     int // bytes of the strings and contents
}

func newSaveBatch(op string, msgs []message.Message) (*saveBatch, error) {
	n := len(msgs)
	b := &saveBatch{msgs: msgs, contents: make([][]byte, n), created: make([]time.Time, n), distinct: true, at: now()}
	// The contents go into one buffer, sliced once it is complete.
	b.enc = encBuffer(storedSizeHint(msgs))
	enc := *b.enc
	ends := make([]int, n)
	for i := range msgs {
		m := &msgs[i]
		var err error
		if enc, err = message.AppendStored(enc, m.Content); err != nil {
			b.release()
			return nil, &memerr.Error{Code: memerr.CodeInvalidMessage, Op: op, Msg: "message " + strconv.Quote(m.ID) + ": content is not JSON", Err: err}
		}
		ends[i] = len(enc)
		b.size += len(m.ID) + len(m.ThreadID) + len(m.ResourceID) + len(m.Role) + len(m.Type) + len(m.TokenEncoding)
		b.created[i] = utc(m.CreatedAt)
	}
	start := 0
	for i, end := range ends {
		b.contents[i], start = enc[start:end:end], end
	}
	b.size += len(enc)
	*b.enc = enc
	b.keepFirstCreated()
	return b, nil
}

// encBuffers keeps the buffers of batches' stored contents for reuse: the
// contents are copied into the statement's parameters, so a buffer is free
// again when the save returns (one of a batch of 100 is ~10 KiB, and
// allocating it anew was an eighth of a save's garbage).
var encBuffers sync.Pool

// encBuffer returns an empty buffer with room for size bytes.
func encBuffer(size int) *[]byte {
	if p, _ := encBuffers.Get().(*[]byte); p != nil && cap(*p) >= size {
		*p = (*p)[:0]
		return p
	}
	buf := make([]byte, 0, size)
	return &buf
}

// release returns the contents' buffer for reuse; b's contents are then
// invalid.
func (b *saveBatch) release() {
	if b.enc != nil && cap(*b.enc) <= maxPooledParams {
		encBuffers.Put(b.enc)
	}
	b.enc, b.contents = nil, nil
}

// keepFirstCreated gives a repeated id the createdAt of its first
// occurrence: an id repeated in the batch behaves like consecutive saves,
// where the last occurrence wins except for createdAt, which the first set.
// Ids in increasing order (generated UUIDv7s, most batches) are distinct
// without a map.
func (b *saveBatch) keepFirstCreated() {
	if slices.IsSortedFunc(b.msgs, func(x, y message.Message) int { return strings.Compare(x.ID, y.ID) }) {
		for i := 1; i < len(b.msgs); i++ {
			if b.msgs[i].ID == b.msgs[i-1].ID {
				b.created[i], b.distinct = b.created[i-1], false
			}
		}
		return
	}
	first := make(map[string]int, len(b.msgs))
	for i := range b.msgs {
		if j, ok := first[b.msgs[i].ID]; ok {
			b.created[i], b.distinct = b.created[j], false
		} else {
			first[b.msgs[i].ID] = i
		}
	}
}

// storedSizeHint is about the size of the batch's stored contents: their
// texts and some JSON around each part.
func storedSizeHint(msgs []message.Message) int {
	n := 0
	for i := range msgs {
		for j := range msgs[i].Content.Parts {
			n += len(msgs[i].Content.Parts[j].Text) + 48
		}
		n += 32
	}
	return n
}

// saveOneMessageSQL is saveNewMessagesSQL for one message, without arrays
// (the function call and the arrays cost ~2x the statement's server time for
// one message). A stored id fails its INSERT on agentmem_messages_pkey, which undoes
// the thread's UPDATE. A message at or before the thread's boundary (it
// would pull the boundary back, store.PullBack) matches no thread, so it is
// saved by save_messages: the UPDATE then sets updated_at alone, and
// compiling pulled_back's expression for every save was ~10% of the
// statement's server time. Its lookup, the thread's primary key, is an index
// probe unless VACUUM last saw the threads table (nearly) empty; a
// connection that plans it then scans that table until autovacuum's next
// ANALYZE, which makes the plan again. Guarding it as the window read is
// guarded (SET LOCAL enable_seqscan = off in the same pipeline) added
// 36-91 µs of client and server CPU to a save, more than the statement's own
// server time, so it is not.
const saveOneMessageSQL = `WITH thr AS (
	UPDATE {{schema}}.agentmem_threads t SET updated_at = $10::timestamptz
	WHERE t.id = $2::text AND t.resource_id = $3::text
		AND (jsonb_typeof(t.boundary) = 'object' AND (t.boundary->>'createdAt')::timestamptz >= $7::timestamptz) IS NOT TRUE
	RETURNING t.id
)
INSERT INTO {{schema}}.agentmem_messages (id, thread_id, resource_id, role, type, content, created_at, tokens, token_encoding)
SELECT $1, thr.id, $3, $4::text, $5::text, $6::text, $7, $8::int, $9::text FROM thr
RETURNING id, seq`

// oneThread reports whether every message of a non-empty batch has the
// first one's thread and resource.
func (b *saveBatch) oneThread() bool {
	for i := range b.msgs {
		if b.msgs[i].ThreadID != b.msgs[0].ThreadID || b.msgs[i].ResourceID != b.msgs[0].ResourceID {
			return false
		}
	}
	return len(b.msgs) > 0
}

// saveNew saves a batch of new messages into one thread with one
// statement: saveOneMessageSQL for one message, saveNewMessagesSQL for
// distinct ids. It reports false, having changed nothing, when the batch is
// of another kind, its thread is missing or another resource's, or it would
// pull the thread's boundary back, and fails on agentmem_messages_pkey when an id is
// stored.
func (b *saveBatch) saveNew(ctx context.Context, s *Store, res *saveResult) (bool, error) {
	sql, w := b.newStatement(s.q.saveOneMessage, s.q.saveNewMessages)
	if w == nil {
		return false, nil
	}
	defer w.release()
	return b.saveNewRows(ctx, s, sql, w, res)
}

// saveNewRows runs saveOneMessageSQL or saveNewMessagesSQL and reads the id
// and seq each answers for a message. It reports false when nothing was
// written (no rows) or the rows are not the batch's ids in batch order;
// save_messages then reports what is stored.
func (b *saveBatch) saveNewRows(ctx context.Context, s *Store, sql string, w *paramWriter, res *saveResult) (bool, error) {
	rows := newRows{b: b}
	if err := s.execEach(ctx, sql, w.values(), rows.add); err != nil || !rows.inOrder() {
		return false, err
	}
	*res = saveResult{seqs: rows.seqs}
	return true, nil
}

// newStatement returns one (for a single message) or many (for distinct
// ids into one thread) with the batch's parameters, or a nil writer when
// the batch is of another kind: the statements of saveNew, or their joint
// variants.
func (b *saveBatch) newStatement(one, many string) (string, *paramWriter) {
	if len(b.msgs) == 1 {
		w := newParamWriter(b.size + 64)
		m := &b.msgs[0]
		for _, v := range [...]string{m.ID, m.ThreadID, m.ResourceID, string(m.Role), m.Type} {
			w.text(v)
		}
		w.bytes(b.contents[0])
		w.timestamptz(b.created[0])
		w.int4(int32(m.Tokens))
		w.text(m.TokenEncoding)
		w.timestamptz(b.at)
		return one, w
	}
	if !b.distinct || !b.oneThread() {
		return "", nil
	}
	w := b.params()
	w.text(b.msgs[0].ThreadID)
	w.text(b.msgs[0].ResourceID)
	b.rest(w)
	return many, w
}

// newRows reads the id and seq each row of saveNew's statements answers
// for a message, in binary format.
type newRows struct {
	b    *saveBatch
	ids  []string
	seqs []int64
	bad  bool // a row of another shape
}

func (r *newRows) add(v [][]byte) {
	if len(v) != 2 || len(v[1]) != 8 {
		r.bad = true
		return
	}
	r.ids = append(r.ids, string(v[0]))
	r.seqs = append(r.seqs, int64(binary.BigEndian.Uint64(v[1])))
}

// inOrder reports whether the rows are the batch's ids in batch order.
func (r *newRows) inOrder() bool {
	if r.bad || len(r.ids) != len(r.b.msgs) {
		return false
	}
	for i, id := range r.ids {
		if id != r.b.msgs[i].ID {
			return false
		}
	}
	return true
}

// saveAll saves the batch with save_messages.
func (b *saveBatch) saveAll(ctx context.Context, s *Store, res *saveResult) error {
	w := b.params()
	defer w.release()
	w.texts(b.msgs, func(m *message.Message) string { return m.ThreadID })
	w.texts(b.msgs, func(m *message.Message) string { return m.ResourceID })
	b.rest(w)
	rows, types, err := s.execBinary(ctx, s.q.saveMessages, w.values())
	if err != nil {
		return err
	}
	*res, err = readSaveResult("SaveMessages", rows, types, len(b.msgs))
	return err
}

// params starts the parameters of saveNewMessagesSQL and save_messages,
// which differ in the thread and resource parameters the caller writes
// next: the ids, with room for the rest.
func (b *saveBatch) params() *paramWriter {
	n := len(b.msgs)
	// Each array: a 20-byte header and a 4-byte length per element.
	w := newParamWriter(b.size + 7*(20+4*n) + 12*n + 64)
	w.texts(b.msgs, func(m *message.Message) string { return m.ID })
	return w
}

// rest writes the parameters after the thread and resource.
func (b *saveBatch) rest(w *paramWriter) {
	w.texts(b.msgs, func(m *message.Message) string { return string(m.Role) })
	w.texts(b.msgs, func(m *message.Message) string { return m.Type })
	w.byteTexts(b.contents)
	w.timestamptzs(b.created)
	w.tokens(b.msgs)
	w.texts(b.msgs, func(m *message.Message) string { return m.TokenEncoding })
	w.timestamptz(b.at)
}

// saveResult is what a save statement answered: the refusal, or the seq of
// every message in batch order, or the stored createdAt and seq by id.
type saveResult struct {
	refused error
	seqs    []int64
	saved   map[string]stored
}

type stored struct {
	createdAt time.Time
	seq       int64
}

// readSaveResult reads the rows of save_messages; errStale asks for the
// call to be repeated.
func readSaveResult(op string, rows *pgconn.Result, types *pgtype.Map, n int) (saveResult, error) {
	var res saveResult
	for _, row := range rows.Rows {
		var (
			kind     int32
			ord      *int64
			threadID *string
			why      *string
			id       *string
			at       *time.Time
			seq      *int64
		)
		if err := scanRow(types, rows.FieldDescriptions, row, &kind, &ord, &threadID, &why, &id, &at, &seq); err != nil {
			return saveResult{}, err
		}
		switch {
		case kind == 0 && deref(why) == "takeover":
			res.refused = memerr.Errorf(memerr.CodeResourceMismatch, op, "message %d: its id belongs to another resource", deref(ord)-1)
		case kind == 0 && deref(why) == "missing":
			res.refused = memerr.Errorf(memerr.CodeThreadNotFound, op, "thread %q of message %d not found", deref(threadID), deref(ord)-1)
		case kind == 0:
			res.refused = memerr.Errorf(memerr.CodeResourceMismatch, op, "thread %q of message %d belongs to another resource", deref(threadID), deref(ord)-1)
		case kind == 2:
			return saveResult{}, errStale
		case id != nil && at != nil && seq != nil:
			if res.saved == nil {
				res.saved = make(map[string]stored, n)
			}
			res.saved[*id] = stored{at.UTC(), *seq}
		}
	}
	return res, nil
}

// scanRow decodes the values of a row read by pgconn into dest, as
// pgx.Rows.Scan does.
func scanRow(types *pgtype.Map, fields []pgconn.FieldDescription, row [][]byte, dest ...any) error {
	if len(row) != len(dest) || len(fields) != len(dest) {
		return fmt.Errorf("postgres: %d values for %d destinations", len(row), len(dest))
	}
	for i, f := range fields {
		if err := types.Scan(f.DataTypeOID, f.Format, row[i], dest[i]); err != nil {
			return fmt.Errorf("postgres: column %s: %w", f.Name, err)
		}
	}
	return nil
}

// saveMessagesSQL calls save_messages (migrations/0004_save_function.sql,
// agentmem_save_messages since 0010_prefixed_names.sql),
// which locks the threads involved and then the stored messages of the batch,
// each in id order (DeleteMessages does the same, so saves, moves and deletes
// of overlapping messages serialise instead of deadlocking), refuses the
// whole batch before writing anything, upserts and bumps the threads. A call
// that meets rows newer than its locks reports kind 2 or fails with a unique
// violation on agentmem_messages_pkey and is run again (see retry); so is one the
// server's deadlock detector aborts.
const saveMessagesSQL = `SELECT kind, ord, thread_id, why, id, created_at, seq FROM {{schema}}.agentmem_save_messages(
	$1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::int[], $9::text[], $10::timestamptz)`

// saveNewMessagesSQL saves a batch of distinct ids into one thread as one
// statement (migrations/0005's save_new_messages as a statement of its own,
// as saveOneMessageSQL is, answering rows): the thread's UPDATE takes its
// row lock and matches nothing when the thread is missing or another
// resource's, the INSERT reads the row it returns, and a stored id fails the
// INSERT on agentmem_messages_pkey, which undoes the UPDATE. As in saveOneMessageSQL,
// a batch with a message at or before the thread's boundary matches no
// thread and is saved by save_messages, which pulls the boundary back: the
// fast paths never change a boundary.
//
// It answers each message's id and seq in batch order (RETURNING follows
// the scan of the arrays; should a plan ever reorder the rows, saveNewRows
// sees it and save_messages reports each row it finds stored), or no row
// when nothing was written. Aggregating that answer on the server into one
// row of seqs checked against $1 (the INSERT in a CTE) cost ~15% more of the
// server's time for 100 messages. Called through the function, the statement
// cost ~30% more, and the function's look-up of every id before the INSERT,
// whose unique check walks the same index to the same leaf pages, ~20% more
// (BENCHMARKS.md, "Saves without save_new_messages' function call"), and
// migration 0010 dropped it. Its one lookup is the thread's primary key, planned as in
// saveOneMessageSQL.
const saveNewMessagesSQL = `WITH thr AS (
	UPDATE {{schema}}.agentmem_threads t SET updated_at = $10::timestamptz
	WHERE t.id = $2::text AND t.resource_id = $3::text
		AND (jsonb_typeof(t.boundary) = 'object'
			AND (t.boundary->>'createdAt')::timestamptz >= (SELECT min(c) FROM unnest($7::timestamptz[]) AS c)) IS NOT TRUE
	RETURNING t.id
)
INSERT INTO {{schema}}.agentmem_messages AS m (id, thread_id, resource_id, role, type, content, created_at, tokens, token_encoding)
SELECT u.id, thr.id, $3::text, u.role, u.type, u.content, u.created, u.tokens, u.enc
FROM thr, unnest($1::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::int[], $9::text[])
	AS u(id, role, type, content, created, tokens, enc)
RETURNING m.id, m.seq`

// ListMessages selects messages of one thread and the Include windows in a
// single statement: the listed page (keyset cursor, date range, LIMIT
// PerPage+1 for HasMore), each window by LATERAL index scans around its
// target, and the total count when asked.
func (s *Store) ListMessages(ctx context.Context, q store.MessageQuery) (store.MessagePage, error) {
	const op = "ListMessages"
	page := store.MessagePage{Messages: []message.Message{}, Included: []message.Message{}}
	sql, args := s.listMessagesSQL(q)
	if sql == "" {
		return page, nil
	}
	rows, done, err := s.queryIndexOrder(ctx, planGuard, sql, args...)
	if err != nil {
		return store.MessagePage{}, wrap(ctx, op, err)
	}
	defer func() { rows.Close(); _ = done() }()
	var included []message.Message
	for rows.Next() {
		var (
			src   int32
			total *int64
		)
		m, err := scanMessage(rows, []any{&src}, []any{&total})
		if err != nil {
			rows.Close()
			return store.MessagePage{}, wrap(ctx, op, err)
		}
		switch src {
		case 0:
			page.Messages = append(page.Messages, m)
		case 1:
			included = append(included, m)
		case 2:
			if total != nil {
				page.Total = int(*total)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return store.MessagePage{}, wrap(ctx, op, err)
	}

	less := func(a, b *message.Message) bool { return message.Less(a, b) }
	if q.Direction == store.Desc {
		less = func(a, b *message.Message) bool { return message.Less(b, a) }
	}
	sort.Slice(page.Messages, func(i, j int) bool { return less(&page.Messages[i], &page.Messages[j]) })
	if q.PerPage > 0 && len(page.Messages) > q.PerPage {
		page.Messages = page.Messages[:q.PerPage]
		page.HasMore = true
	}
	seen := make(map[string]bool, len(page.Messages)+len(included))
	for i := range page.Messages {
		seen[page.Messages[i].ID] = true
	}
	for _, m := range included {
		if !seen[m.ID] {
			seen[m.ID] = true
			page.Included = append(page.Included, m)
		}
	}
	sort.Slice(page.Included, func(i, j int) bool { return message.Less(&page.Included[i], &page.Included[j]) })
	return page, nil
}

// listMessagesSQL builds the ListMessages statement from fixed fragments;
// every value is a bound parameter. It returns "" when nothing is asked.
func (s *Store) listMessagesSQL(q store.MessageQuery) (string, []any) {
	var args params
	arg := args.add
	cols := "m.id, m.thread_id, m.resource_id, m.role, m.type, m.content, m.created_at, m.tokens, m.token_encoding, m.seq"
	resource := ""
	if q.ResourceID != "" {
		resource = arg(q.ResourceID) + "::text"
	}
	filter := "" // conditions of listed (and counted) rows
	if q.PerPage != 0 || q.IncludeTotal {
		filter = pageFilter(q, resource, arg)
	}
	var parts []string
	if q.PerPage != 0 {
		parts = append(parts, "("+s.pageSQL(q, "0::int4 AS src, "+cols+", NULL::bigint AS total", filter, arg)+")")
	}
	if len(q.Include) > 0 {
		ids := make([]string, len(q.Include))
		before := make([]int64, len(q.Include))
		after := make([]int64, len(q.Include))
		for i, inc := range q.Include {
			// The window is the target, up to Before earlier and up to After
			// later messages (as the conformance suite and memstore define it).
			ids[i], before[i], after[i] = inc.ID, satAdd(int64(inc.Before), 1), int64(inc.After)
		}
		own, win := "", ""
		if resource != "" {
			own = " AND t.resource_id = " + resource
			win = " AND m.resource_id = " + resource
		}
		parts = append(parts, "(SELECT 1::int4 AS src, w.*, NULL::bigint AS total"+
			" FROM unnest("+arg(ids)+"::text[], "+arg(before)+"::bigint[], "+arg(after)+"::bigint[]) AS i(id, nb, na)"+
			" JOIN "+s.q.messages+" t ON t.id = i.id"+own+
			" CROSS JOIN LATERAL ("+
			"(SELECT "+cols+" FROM "+s.q.messages+" m WHERE m.thread_id = t.thread_id"+win+
			" AND (m.created_at, m.seq) <= (t.created_at, t.seq) ORDER BY m.created_at DESC, m.seq DESC LIMIT i.nb)"+
			" UNION ALL "+
			"(SELECT "+cols+" FROM "+s.q.messages+" m WHERE m.thread_id = t.thread_id"+win+
			" AND (m.created_at, m.seq) > (t.created_at, t.seq) ORDER BY m.created_at ASC, m.seq ASC LIMIT i.na)"+
			") w)")
	}
	if q.IncludeTotal {
		parts = append(parts, "(SELECT 2::int4, ''::text, ''::text, ''::text, ''::text, ''::text, 'null'::text,"+
			" 'epoch'::timestamptz, 0::int4, ''::text, 0::bigint, count(*) FROM "+s.q.messages+" m WHERE "+filter+")")
	}
	if len(parts) == 0 {
		return "", nil
	}
	return strings.Join(parts, " UNION ALL "), args
}

// params collects the values a statement binds.
type params []any

// add binds v and returns its placeholder.
func (p *params) add(v any) string {
	*p = append(*p, v)
	return "$" + strconv.Itoa(len(*p))
}

// pageFilter is the condition of q's listed rows: thread, resource (the
// placeholder binding it, or ""), date range and keyset cursor, all within
// the (thread_id, created_at, seq) index range.
func pageFilter(q store.MessageQuery, resource string, arg func(any) string) string {
	var filter strings.Builder
	filter.WriteString("m.thread_id = " + arg(q.ThreadID) + "::text")
	if resource != "" {
		filter.WriteString(" AND m.resource_id = " + resource)
	}
	if r := q.Range; r.Start != nil {
		op := " >= "
		if r.StartExclusive {
			op = " > "
		}
		filter.WriteString(" AND m.created_at" + op + arg(utc(*r.Start)) + "::timestamptz")
	}
	if r := q.Range; r.End != nil {
		op := " <= "
		if r.EndExclusive {
			op = " < "
		}
		filter.WriteString(" AND m.created_at" + op + arg(utc(*r.End)) + "::timestamptz")
	}
	if c := q.Before; c != nil {
		filter.WriteString(" AND (m.created_at, m.seq) < (" + arg(utc(c.CreatedAt)) + "::timestamptz, " + arg(c.Seq) + "::bigint)")
	}
	if !q.Metadata.IsZero() {
		filter.WriteString(" AND " + metadataSQL(q.Metadata, arg))
	}
	if len(q.ExcludeIDs) > 0 {
		filter.WriteString(" AND m.id <> ALL(" + arg(q.ExcludeIDs) + "::text[])")
	}
	return filter.String()
}

// pageSQL selects cols of the rows filter admits in q's order, q's page of
// them (LIMIT one more than PerPage, for HasMore).
func (s *Store) pageSQL(q store.MessageQuery, cols, filter string, arg func(any) string) string {
	dir := " " + q.Direction.Keyword()
	sql := "SELECT " + cols + " FROM " + s.q.messages + " m WHERE " + filter + " ORDER BY m.created_at" + dir + ", m.seq" + dir
	if q.PerPage != store.PerPageAll {
		sql += " LIMIT " + arg(satAdd(int64(q.PerPage), 1)) + " OFFSET " + arg(satMul(int64(q.Page), int64(q.PerPage)))
	}
	return sql
}

// GetMessages returns the messages with the given ids, chronologically;
// unknown ids are skipped.
func (s *Store) GetMessages(ctx context.Context, ids []string) ([]message.Message, error) {
	const op = "GetMessages"
	return s.queryMessages(ctx, op, s.q.getMessages, ids)
}

// queryMessages runs a query selecting messageCols and scans every row.
func (s *Store) queryMessages(ctx context.Context, op, sql string, args ...any) ([]message.Message, error) {
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, wrap(ctx, op, err)
	}
	defer rows.Close()
	out := []message.Message{}
	for rows.Next() {
		m, err := scanMessage(rows, nil, nil)
		if err != nil {
			return nil, wrap(ctx, op, err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap(ctx, op, err)
	}
	return out, nil
}

const getMessagesSQL = `SELECT ` + messageCols + ` FROM {{schema}}.agentmem_messages WHERE id = ANY($1::text[]) ORDER BY created_at, seq`

// DeleteMessages deletes messages by id and bumps the UpdatedAt of their
// threads, in one statement.
func (s *Store) DeleteMessages(ctx context.Context, ids []string) (err error) {
	const op = "DeleteMessages"
	defer unconfirmed(ctx, op, &err)
	at := now()
	return wrap(ctx, op, retry(ctx, func() error {
		var stale bool
		if err := s.pool.QueryRow(ctx, s.q.deleteMessages, ids, at).Scan(&stale); err != nil {
			return err
		}
		if stale {
			return errStale
		}
		return nil
	}))
}

// deleteMessagesSQL locks threads, then message rows, in the order of
// saveMessagesSQL, and reports stale (deleting nothing) when a message moved
// to a thread it did not lock.
const deleteMessagesSQL = `
WITH thr AS (
	SELECT t.id FROM {{schema}}.agentmem_threads t
	WHERE t.id IN (SELECT m.thread_id FROM {{schema}}.agentmem_messages m WHERE m.id = ANY($1::text[]))
	ORDER BY t.id
	FOR UPDATE
),
locked AS (SELECT count(*) AS n FROM thr),
cur AS (
	SELECT m.id, m.thread_id FROM {{schema}}.agentmem_messages m
	WHERE m.id = ANY($1::text[]) AND (SELECT n FROM locked) >= 0
	ORDER BY m.id
	FOR UPDATE
),
stale AS (
	SELECT count(*) > 0 AS s FROM cur c WHERE c.thread_id NOT IN (SELECT id FROM thr)
),
del AS (
	DELETE FROM {{schema}}.agentmem_messages m
	WHERE m.id = ANY($1::text[]) AND NOT (SELECT s FROM stale)
	RETURNING m.thread_id
),
touch AS (
	UPDATE {{schema}}.agentmem_threads SET updated_at = $2
	WHERE id IN (SELECT thread_id FROM del)
)
SELECT s FROM stale`

// scanMessage reads messageCols, with optional destinations before (pre)
// and after (post) them.
func scanMessage(row pgx.Row, pre, post []any) (message.Message, error) {
	m, content, err := scanBare(row, pre, post)
	if err != nil {
		return message.Message{}, err
	}
	if err := decodeContent(&m, content); err != nil {
		return message.Message{}, err
	}
	return m, nil
}

// scanBare is scanMessage without decoding the content, which it returns
// as stored.
func scanBare(row pgx.Row, pre, post []any) (message.Message, []byte, error) {
	var (
		m       message.Message
		role    string
		content []byte
		tokens  int32
	)
	dest := make([]any, 0, len(pre)+10+len(post))
	dest = append(dest, pre...)
	dest = append(dest, &m.ID, &m.ThreadID, &m.ResourceID, &role, &m.Type, &content, &m.CreatedAt, &tokens, &m.TokenEncoding, &m.Seq)
	dest = append(dest, post...)
	if err := row.Scan(dest...); err != nil {
		return message.Message{}, nil, err
	}
	m.Role, m.Tokens, m.CreatedAt = message.Role(role), int(tokens), m.CreatedAt.UTC()
	return m, content, nil
}

func decodeContent(m *message.Message, content []byte) error {
	if len(content) == 0 || bytes.Equal(content, []byte("null")) {
		return nil
	}
	return message.UnmarshalStored(content, &m.Content)
}

// satAdd and satMul add and multiply non-negative values, saturating at
// math.MaxInt64 (LIMIT and OFFSET from huge caller-supplied values).
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func satMul(a, b int64) int64 {
	if b != 0 && a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
