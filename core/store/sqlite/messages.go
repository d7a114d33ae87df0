package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

const messageCols = `seq, id, thread_id, resource_id, role, type, content, created_at, tokens, token_encoding`

// maxIn bounds the size of IN lists (SQLite's variable limit is far higher).
const maxIn = 500

func scanMessage(sc scanner) (message.Message, error) {
	m, content, err := scanBare(sc)
	if err != nil {
		return m, err
	}
	return m, decodeContent(&m, content)
}

// scanBare scans a row of messageCols without decoding its content, which
// it returns as stored.
func scanBare(sc scanner) (message.Message, string, error) {
	var (
		m             message.Message
		role, content string
		created       int64
	)
	if err := sc.Scan(&m.Seq, &m.ID, &m.ThreadID, &m.ResourceID, &role, &m.Type, &content, &created, &m.Tokens, &m.TokenEncoding); err != nil {
		return m, "", err
	}
	m.Role, m.CreatedAt = message.Role(role), fromMicro(created)
	return m, content, nil
}

// decodeContent decodes stored content with message.UnmarshalStored, which
// takes the common text-only shapes in one pass (encoding/json would first
// scan the whole value to validate it). The content is scanned as a string
// (the driver's copy of the column): the texts decoded share it.
func decodeContent(m *message.Message, content string) error {
	if err := message.UnmarshalStored(content, &m.Content); err != nil {
		return fmt.Errorf("decode content of message %q: %w", m.ID, err)
	}
	return nil
}

func queryMessages(ctx context.Context, tx querier, query string, args ...any) ([]message.Message, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []message.Message
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// SaveMessages upserts msgs in one transaction (all or none), checking that
// every thread exists and belongs to the message's resource, and that an
// existing message is not taken over by another resource. Rows are looked up
// and written in multi-row statements (up to insertRows rows each, prepared
// once per Store: see prepared.go): a statement's cost in the driver, not
// SQLite's work per row, dominates single-row writes.
func (s *Store) SaveMessages(ctx context.Context, msgs []message.Message) ([]message.Message, error) {
	const op = "SaveMessages"
	contents, err := storedContents(op, msgs)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(msgs))
	for i := range msgs {
		ids[i] = msgs[i].ID
	}
	ids = dedup(ids)
	out := slices.Clone(msgs)
	// A batch of new messages (the common case: a conversation's saves)
	// is written as SaveMessagesBulk writes it, without looking its ids up
	// first and without an upsert returning every row: a third less CPU for
	// a batch of 1,000 (BenchmarkSaveBatch). A stored id rolls that back to
	// a savepoint and the batch is upserted. Small saves go straight to the
	// upsert: two more statements would cost them more than the lookup.
	fresh := len(ids) == len(msgs) && len(msgs) > smallSave
	queries := saveStatements(msgs, ids, upsertSQL)
	if fresh && len(msgs) >= insertNewSQL.full {
		queries = append(queries, insertNewSQL.text(insertNewSQL.full))
	}
	err = s.writePrepared(ctx, op, queries, func(tx querier) error {
		if err := checkOwners(ctx, tx, op, msgs); err != nil {
			return err
		}
		if fresh {
			saved, err := s.trySaveNew(ctx, tx, out, contents)
			if saved || err != nil {
				return err
			}
			copy(out, msgs)
		}
		stored, err := storedOwners(ctx, tx, ids)
		if err != nil {
			return err
		}
		touched := map[string]bool{}
		earliest := map[string]int64{} // thread -> earliest CreatedAt inserted
		for _, m := range msgs {
			prev, ok := stored[m.ID]
			switch {
			case !ok:
				at := m.CreatedAt.UTC().UnixMicro()
				if e, ok := earliest[m.ThreadID]; !ok || at < e {
					earliest[m.ThreadID] = at
				}
			case prev.resource != m.ResourceID:
				return memerr.Errorf(memerr.CodeResourceMismatch, op, "message %q belongs to another resource", m.ID)
			default:
				touched[prev.thread] = true
			}
			if len(ids) < len(msgs) {
				// A later message of the batch with the same id updates this one.
				stored[m.ID] = owner{thread: m.ThreadID, resource: m.ResourceID}
			}
			touched[m.ThreadID] = true
		}
		if err := insertMessages(ctx, tx, out, contents); err != nil {
			return err
		}
		if err := pullBackBoundaries(ctx, tx, earliest); err != nil {
			return err
		}
		return bumpThreads(ctx, tx, slices.Sorted(maps.Keys(touched)), s.stamp())
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// trySaveNew runs saveNew under a savepoint; saved is false, with nothing
// written, when a message of msgs is already stored.
func (s *Store) trySaveNew(ctx context.Context, tx querier, msgs []message.Message, contents []string) (saved bool, err error) {
	if _, err := tx.ExecContext(ctx, `SAVEPOINT save_new`); err != nil {
		return false, err
	}
	err = s.saveNew(ctx, tx, msgs, contents)
	if errors.Is(err, errStored) {
		if _, err := tx.ExecContext(ctx, `ROLLBACK TO save_new`); err != nil {
			return false, err
		}
	} else if err != nil {
		return false, err
	}
	_, rerr := tx.ExecContext(ctx, `RELEASE save_new`)
	return err == nil && rerr == nil, rerr
}

// storedContents encodes the contents of msgs as stored. The strings share
// one buffer, sized from the texts: one allocation for the batch rather
// than a growing buffer and a copy for every message.
func storedContents(op string, msgs []message.Message) ([]string, error) {
	size := 0
	for i := range msgs {
		for _, p := range msgs[i].Content.Parts {
			size += len(p.Text) + 64 // the quotes, the escapes, a part's keys
		}
	}
	var all strings.Builder
	all.Grow(size)
	var scratch []byte
	ends := make([]int, len(msgs))
	for i := range msgs {
		var err error
		scratch, err = message.AppendStored(scratch[:0], msgs[i].Content)
		if err != nil {
			return nil, memerr.Errorf(memerr.CodeInvalidMessage, op, "message %q: content is not JSON: %v", msgs[i].ID, err)
		}
		all.Write(scratch)
		ends[i] = all.Len()
	}
	joined := all.String()
	contents := make([]string, len(msgs))
	start := 0
	for i, end := range ends {
		contents[i], start = joined[start:end], end
	}
	return contents, nil
}

// checkOwners requires every message's thread to exist and belong to the
// message's resource.
func checkOwners(ctx context.Context, tx querier, op string, msgs []message.Message) error {
	owners := map[string]string{} // thread id -> resource id
	for _, m := range msgs {
		res, ok := owners[m.ThreadID]
		if !ok {
			err := tx.QueryRowContext(ctx, threadOwnerSQL, m.ThreadID).Scan(&res)
			if errors.Is(err, sql.ErrNoRows) {
				return memerr.Errorf(memerr.CodeThreadNotFound, op, "thread %q not found", m.ThreadID)
			}
			if err != nil {
				return err
			}
			owners[m.ThreadID] = res
		}
		if res != m.ResourceID {
			return memerr.Errorf(memerr.CodeResourceMismatch, op, "thread %q does not belong to resource %q", m.ThreadID, m.ResourceID)
		}
	}
	return nil
}

// threadOwnerSQL selects a thread's resource.
const threadOwnerSQL = `SELECT resource_id FROM threads WHERE id = ?`

// storedOwnersSQL selects the thread and resource of n messages by id.
var storedOwnersSQL = newSizedSQL(maxIn, func(n int) string {
	return `SELECT id, thread_id, resource_id FROM messages WHERE id IN (` + placeholders(n) + `)`
})

// bumpThreadsSQL sets the updated_at of n threads.
var bumpThreadsSQL = newSizedSQL(maxIn, func(n int) string {
	return `UPDATE threads SET updated_at = ? WHERE id IN (` + placeholders(n) + `)`
})

// owner is where a stored message lives.
type owner struct{ thread, resource string }

// storedOwners returns the thread and resource of the messages of ids (no
// id twice) that are already stored, by id.
func storedOwners(ctx context.Context, tx querier, ids []string) (map[string]owner, error) {
	out := map[string]owner{}
	for _, c := range chunk(ids, maxIn) {
		rows, err := tx.QueryContext(ctx, storedOwnersSQL.text(len(c)), anyArgs(c)...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id string
			var o owner
			if err := rows.Scan(&id, &o.thread, &o.resource); err != nil {
				rows.Close()
				return nil, err
			}
			out[id] = o
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// insertRows is the number of rows of one upsert statement (5 variables
// each and 4 shared, far below SQLite's limit of 32,766).
const insertRows = 100

// insertMessages upserts msgs (with their encoded contents) and sets each
// one's Seq and stored CreatedAt (an existing row keeps its own). Runs of
// messages that share a thread, resource, type and token encoding go in
// statements of up to insertRows rows that bind those values once.
func insertMessages(ctx context.Context, tx querier, msgs []message.Message, contents []string) error {
	args := make([]any, 0, 4+5*min(len(msgs), insertRows))
	for lo := 0; lo < len(msgs); {
		hi := sharedRun(msgs, lo, insertRows)
		part := msgs[lo:hi]
		rows, err := tx.QueryContext(ctx, upsertSQL.text(len(part)), sharedArgs(args[:0], part, contents[lo:hi])...)
		if err != nil {
			return err
		}
		if err := scanInserted(rows, part); err != nil {
			return err
		}
		lo = hi
	}
	return nil
}

// upsertSQL is the upsert of n rows in sharedRows' shape, returning each
// row's id, seq and stored created_at.
var upsertSQL = newSizedSQL(insertRows, func(n int) string {
	return `INSERT INTO messages (id, thread_id, resource_id, role, type, content, created_at, tokens, token_encoding)
		` + sharedRows(n) + `
		ON CONFLICT (id) DO UPDATE SET thread_id = excluded.thread_id, resource_id = excluded.resource_id,
			role = excluded.role, type = excluded.type, content = excluded.content,
			tokens = excluded.tokens, token_encoding = excluded.token_encoding
		RETURNING id, seq, created_at`
})

// scanInserted sets Seq and CreatedAt of part from the rows an upsert
// returned (in no guaranteed order; every row of one id has the same seq
// and created_at, since an update changes neither).
func scanInserted(rows *sql.Rows, part []message.Message) error {
	type stored struct{ seq, created int64 }
	got := make(map[string]stored, len(part))
	for rows.Next() {
		var id string
		var st stored
		if err := rows.Scan(&id, &st.seq, &st.created); err != nil {
			rows.Close()
			return err
		}
		got[id] = st
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return err
	}
	for i := range part {
		st, ok := got[part[i].ID]
		if !ok {
			return fmt.Errorf("message %q: no row returned by the upsert", part[i].ID)
		}
		part[i].Seq, part[i].CreatedAt = st.seq, fromMicro(st.created)
	}
	return nil
}

// bumpThreads sets updated_at of the given threads.
func bumpThreads(ctx context.Context, tx querier, ids []string, now int64) error {
	for _, c := range chunk(ids, maxIn) {
		if _, err := tx.ExecContext(ctx, bumpThreadsSQL.text(len(c)),
			append([]any{now}, anyArgs(c)...)...); err != nil {
			return err
		}
	}
	return nil
}

// GetMessages returns the messages with the given ids in (CreatedAt, Seq)
// order; unknown ids are skipped.
func (s *Store) GetMessages(ctx context.Context, ids []string) ([]message.Message, error) {
	const op = "GetMessages"
	var out []message.Message
	err := s.read(ctx, op, func(tx *sql.Tx) error {
		for _, c := range chunk(dedup(ids), maxIn) {
			ms, err := queryMessages(ctx, tx, `SELECT `+messageCols+` FROM messages WHERE id IN (`+placeholders(len(c))+`)`, anyArgs(c)...)
			if err != nil {
				return err
			}
			out = append(out, ms...)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sortMessages(out)
	return out, nil
}

func dedup(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

func sortMessages(ms []message.Message) {
	sort.Slice(ms, func(i, j int) bool { return message.Less(&ms[i], &ms[j]) })
}

// DeleteMessages deletes messages by id and bumps the UpdatedAt of their threads.
func (s *Store) DeleteMessages(ctx context.Context, ids []string) error {
	const op = "DeleteMessages"
	return s.write(ctx, op, func(tx *sql.Tx) error {
		touched := map[string]bool{}
		for _, c := range chunk(dedup(ids), maxIn) {
			rows, err := tx.QueryContext(ctx, `DELETE FROM messages WHERE id IN (`+placeholders(len(c))+`) RETURNING thread_id`, anyArgs(c)...)
			if err != nil {
				return err
			}
			for rows.Next() {
				var tid string
				if err := rows.Scan(&tid); err != nil {
					rows.Close()
					return err
				}
				touched[tid] = true
			}
			if err := rows.Close(); err != nil {
				return err
			}
			if err := rows.Err(); err != nil {
				return err
			}
		}
		return bumpThreads(ctx, tx, slices.Sorted(maps.Keys(touched)), s.stamp())
	})
}

// ListMessages selects messages of one thread; see store.MessageQuery.
func (s *Store) ListMessages(ctx context.Context, q store.MessageQuery) (store.MessagePage, error) {
	const op = "ListMessages"
	var page store.MessagePage
	query, listArgs, listed := listQuery(q)
	err := s.readPrepared(ctx, op, listStatements(query, listed && q.Metadata.IsZero()), func(tx querier) error {
		where, args := messageFilter(q)
		if q.IncludeTotal {
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM messages WHERE `+where, args...).Scan(&page.Total); err != nil {
				return err
			}
		}
		if listed {
			ms, err := queryMessages(ctx, tx, query, listArgs...)
			if err != nil {
				return err
			}
			if q.PerPage > 0 && len(ms) > q.PerPage {
				ms, page.HasMore = ms[:q.PerPage], true
			}
			page.Messages = ms
		}
		inc, err := includeWindows(ctx, tx, q, page.Messages)
		page.Included = inc
		return err
	})
	if err != nil {
		return store.MessagePage{}, err
	}
	if page.Messages == nil {
		page.Messages = []message.Message{}
	}
	return page, nil
}

// ListWindow implements store.WindowReader: the page of q (newest first,
// no Include or total) with only the rows fit selects decoded. It reads the
// columns a window needs (the thread's id, and the resource's when q names
// it, are q's) into slices sized for the page: growing them was a tenth of
// an 8,000-token Begin.
func (s *Store) ListWindow(ctx context.Context, q store.MessageQuery, fit store.WindowFit) (store.WindowPage, error) {
	const op = "ListWindow"
	var page store.WindowPage
	cols := windowCols
	if q.ResourceID == "" {
		cols += `, resource_id`
	}
	query, args, ok := listQueryCols(q, cols)
	err := s.readPrepared(ctx, op, listStatements(query, ok && q.Metadata.IsZero()), func(tx querier) error {
		if !ok {
			return nil
		}
		rows, err := tx.QueryContext(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		size := 64
		if q.PerPage > 0 {
			size = min(q.PerPage+1, 1024)
		}
		page.Messages = make([]message.Message, 0, size)
		contents := make([]string, 0, size)
		var m message.Message
		var role, content string
		var created int64
		dest := []any{&m.Seq, &m.ID, &role, &m.Type, &content, &created, &m.Tokens, &m.TokenEncoding}
		if q.ResourceID == "" {
			dest = append(dest, &m.ResourceID)
		}
		for rows.Next() {
			m = message.Message{ThreadID: q.ThreadID, ResourceID: q.ResourceID}
			if err := rows.Scan(dest...); err != nil {
				return err
			}
			m.Role, m.CreatedAt = message.Role(role), fromMicro(created)
			page.Messages, contents = append(page.Messages, m), append(contents, content)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if q.PerPage > 0 && len(page.Messages) > q.PerPage {
			page.Messages, contents, page.HasMore = page.Messages[:q.PerPage], contents[:q.PerPage], true
		}
		page.Bare, err = store.DecodeWindow(fit, page.Messages, contents, decodeContent)
		return err
	})
	if err != nil {
		return store.WindowPage{}, err
	}
	if page.Messages == nil {
		page.Messages = []message.Message{}
	}
	return page, nil
}

// windowCols are the columns ListWindow reads, in its scan order.
const windowCols = `seq, id, role, type, content, created_at, tokens, token_encoding`

// messageFilter is the WHERE clause of the listed selection: thread,
// resource, date range and the keyset cursor, all index-range friendly.
func messageFilter(q store.MessageQuery) (string, []any) {
	conds := []string{`thread_id = ?`}
	args := []any{q.ThreadID}
	if q.ResourceID != "" {
		conds = append(conds, `resource_id = ?`)
		args = append(args, q.ResourceID)
	}
	if r := q.Range; r.Start != nil {
		if r.StartExclusive {
			conds, args = append(conds, `created_at > ?`), append(args, floorMicro(*r.Start))
		} else {
			conds, args = append(conds, `created_at >= ?`), append(args, ceilMicro(*r.Start))
		}
	}
	if r := q.Range; r.End != nil {
		if r.EndExclusive {
			conds, args = append(conds, `created_at < ?`), append(args, ceilMicro(*r.End))
		} else {
			conds, args = append(conds, `created_at <= ?`), append(args, floorMicro(*r.End))
		}
	}
	if c := q.Before; c != nil {
		if f := floorMicro(c.CreatedAt); f == ceilMicro(c.CreatedAt) {
			conds, args = append(conds, `(created_at, seq) < (?, ?)`), append(args, f, c.Seq)
		} else {
			conds, args = append(conds, `created_at <= ?`), append(args, f)
		}
	}
	if !q.Metadata.IsZero() {
		conds = append(conds, metadataSQL(q.Metadata, &args))
	}
	if len(q.ExcludeIDs) > 0 {
		conds, args = append(conds, excludeIDsSQL), append(args, encodeIDs(q.ExcludeIDs))
	}
	return strings.Join(conds, ` AND `), args
}

// excludeIDsSQL leaves out the ids of a JSON array: one parameter whatever
// their number, so the statement stays the same prepared one.
const excludeIDsSQL = `id NOT IN (SELECT value FROM json_each(?))`

// listQuery returns the query of the listed page; ok is false when the page
// is empty by definition (PerPage 0 or an offset beyond any table).
func listQuery(q store.MessageQuery) (query string, args []any, ok bool) {
	return listQueryCols(q, messageCols)
}

// listQueryCols is listQuery selecting cols.
func listQueryCols(q store.MessageQuery, cols string) (query string, args []any, ok bool) {
	where, args := messageFilter(q)
	dir := q.Direction.Keyword()
	limit, offset := int64(-1), int64(0)
	switch {
	case q.PerPage == 0:
		return "", nil, false
	case q.PerPage > 0:
		if int64(q.Page) > (math.MaxInt64-1)/int64(q.PerPage) {
			return "", nil, false
		}
		limit, offset = int64(q.PerPage)+1, int64(q.Page)*int64(q.PerPage)
	}
	query = `SELECT ` + cols + ` FROM messages WHERE ` + where +
		` ORDER BY created_at ` + dir + `, seq ` + dir + ` LIMIT ? OFFSET ?`
	return query, append(args, limit, offset), true
}

// listStatements is the statement of a history read to keep prepared: its
// listing query, when it lists without a metadata filter (whose texts are
// unbounded and would take the cache's room from the common reads).
func listStatements(query string, lists bool) []string {
	if !lists {
		return nil
	}
	return []string{query}
}

// includeWindows loads the Include windows: for each target found (within
// q.ResourceID when set), the target, up to Before messages before it and up
// to After messages after it, in the target's own thread; deduplicated
// against listed and returned chronologically.
func includeWindows(ctx context.Context, tx querier, q store.MessageQuery, listed []message.Message) ([]message.Message, error) {
	if len(q.Include) == 0 {
		return nil, nil
	}
	seen := make(map[string]bool, len(listed))
	for _, m := range listed {
		seen[m.ID] = true
	}
	res, resArgs := "", []any{}
	if q.ResourceID != "" {
		res, resArgs = ` AND resource_id = ?`, []any{q.ResourceID}
	}
	var out []message.Message
	for _, inc := range q.Include {
		var thread string
		var created, seq int64
		err := tx.QueryRowContext(ctx, `SELECT thread_id, created_at, seq FROM messages WHERE id = ?`+res,
			append([]any{inc.ID}, resArgs...)...).Scan(&thread, &created, &seq)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, err
		}
		windows := []struct {
			cmp, dir string
			n        int
		}{{"<=", "DESC", inc.Before + 1}, {">", "ASC", inc.After}} // the target itself plus Before earlier
		for _, w := range windows {
			if w.n == 0 {
				continue
			}
			ms, err := queryMessages(ctx, tx, `SELECT `+messageCols+` FROM messages WHERE thread_id = ?`+res+
				` AND (created_at, seq) `+w.cmp+` (?, ?) ORDER BY created_at `+w.dir+`, seq `+w.dir+` LIMIT ?`,
				append(append([]any{thread}, resArgs...), created, seq, w.n)...)
			if err != nil {
				return nil, err
			}
			for _, m := range ms {
				if !seen[m.ID] {
					seen[m.ID] = true
					out = append(out, m)
				}
			}
		}
	}
	sortMessages(out)
	return out, nil
}
