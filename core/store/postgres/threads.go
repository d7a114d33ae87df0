package postgres

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"

	"github.com/jackc/pgx/v5"
)

const threadCols = "id, resource_id, title, metadata, created_at, updated_at, boundary"

// SaveThread inserts or replaces a thread in one statement. An existing thread
// keeps its CreatedAt, Boundary and working memory; a different ResourceID is
// refused with ErrResourceMismatch and nothing is written.
func (s *Store) SaveThread(ctx context.Context, t store.Thread) (store.Thread, error) {
	out, err := s.putThread(ctx, "SaveThread", s.q.saveThread, t)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Thread{}, withOp(memerr.CodeResourceMismatch, "SaveThread", "thread belongs to another resource")
	}
	return out, err
}

// CreateThread inserts t in one statement; an existing id (of any resource)
// is ErrThreadExists and nothing is written.
func (s *Store) CreateThread(ctx context.Context, t store.Thread) (store.Thread, error) {
	out, err := s.putThread(ctx, "CreateThread", s.q.createThread, t)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Thread{}, withOp(memerr.CodeThreadExists, "CreateThread", "thread already exists")
	}
	return out, err
}

// putThread runs one thread-writing statement; pgx.ErrNoRows is returned
// as it is for the caller to name.
func (s *Store) putThread(ctx context.Context, op, query string, t store.Thread) (_ store.Thread, err error) {
	defer unconfirmed(ctx, op, &err)
	meta, err := encodeMap(t.Metadata)
	if err != nil {
		return store.Thread{}, &memerr.Error{Code: memerr.CodeInvalidArgument, Op: op, Msg: "metadata is not JSON", Err: err}
	}
	n := now()
	created, updated := utc(t.CreatedAt), utc(t.UpdatedAt)
	if t.CreatedAt.IsZero() {
		created = n
	}
	if t.UpdatedAt.IsZero() {
		updated = n
	}
	var out store.Thread
	err = retry(ctx, func() (err error) {
		out, err = scanThread(s.pool.QueryRow(ctx, query, t.ID, t.ResourceID, t.Title, meta, created, updated))
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Thread{}, err
	}
	if err != nil {
		return store.Thread{}, wrap(ctx, op, err)
	}
	return out, nil
}

const createThreadSQL = `
INSERT INTO {{schema}}.agentmem_threads (id, resource_id, title, metadata, created_at, updated_at)
VALUES ($1, $2, $3, $4::jsonb, $5, $6)
ON CONFLICT (id) DO NOTHING
RETURNING ` + threadCols

const saveThreadSQL = `
INSERT INTO {{schema}}.agentmem_threads AS t (id, resource_id, title, metadata, created_at, updated_at)
VALUES ($1, $2, $3, $4::jsonb, $5, $6)
ON CONFLICT (id) DO UPDATE
	SET title = excluded.title, metadata = excluded.metadata, updated_at = excluded.updated_at
	WHERE t.resource_id = excluded.resource_id
RETURNING ` + threadCols

// GetThread returns the thread or ErrThreadNotFound.
func (s *Store) GetThread(ctx context.Context, id string) (store.Thread, error) {
	const op = "GetThread"
	t, err := scanThread(s.pool.QueryRow(ctx, s.q.getThread, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Thread{}, withOp(memerr.CodeThreadNotFound, op, "thread not found")
	}
	if err != nil {
		return store.Thread{}, wrap(ctx, op, err)
	}
	return t, nil
}

const getThreadSQL = `SELECT ` + threadCols + ` FROM {{schema}}.agentmem_threads WHERE id = $1`

// ListThreads lists threads by resource and metadata (a jsonb containment
// test with bound parameters), paged and ordered, with the total count
// computed in the same query.
func (s *Store) ListThreads(ctx context.Context, q store.ThreadQuery) (store.ThreadPage, error) {
	const op = "ListThreads"
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	var where []string
	if q.ResourceID != "" {
		where = append(where, "resource_id = "+arg(q.ResourceID))
	}
	if len(q.Metadata) > 0 {
		filter, err := json.Marshal(q.Metadata)
		if err != nil {
			return store.ThreadPage{}, &memerr.Error{Code: memerr.CodeInvalidArgument, Op: op, Msg: "metadata filter is not JSON", Err: err}
		}
		where = append(where, "metadata @> "+arg(string(filter))+"::jsonb")
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	sql := "SELECT " + threadCols + ", count(*) OVER () FROM " + s.q.threads + cond + " ORDER BY " + q.OrderSQL()
	offset := 0
	if q.PerPage != store.PerPageAll {
		offset = math.MaxInt // a page beyond any table (Page*PerPage overflows)
		if q.Page <= math.MaxInt/q.PerPage {
			offset = q.Page * q.PerPage
		}
		sql += " LIMIT " + arg(int64(q.PerPage)) + " OFFSET " + arg(int64(offset))
	}
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return store.ThreadPage{}, wrap(ctx, op, err)
	}
	page := store.ThreadPage{Threads: []store.Thread{}, Page: q.Page, PerPage: q.PerPage}
	total := int64(-1)
	for rows.Next() {
		t, err := scanThreadWith(rows, &total)
		if err != nil {
			rows.Close()
			return store.ThreadPage{}, wrap(ctx, op, err)
		}
		page.Threads = append(page.Threads, t)
	}
	if err := rows.Err(); err != nil {
		return store.ThreadPage{}, wrap(ctx, op, err)
	}
	if total < 0 {
		total = 0
		if offset > 0 { // past the last page: count separately
			cargs := args
			if q.PerPage != store.PerPageAll {
				cargs = args[:len(args)-2]
			}
			if err := s.pool.QueryRow(ctx, "SELECT count(*) FROM "+s.q.threads+cond, cargs...).Scan(&total); err != nil {
				return store.ThreadPage{}, wrap(ctx, op, err)
			}
		}
	}
	page.Total = int(total)
	page.HasMore = q.PerPage != store.PerPageAll && offset+len(page.Threads) < page.Total
	return page, nil
}

// UpdateThread sets the title (when non-nil) and shallow-merges metadata (a
// nil value deletes the key) in one statement, bumping UpdatedAt.
func (s *Store) UpdateThread(ctx context.Context, id string, title *string, metadata map[string]any) (_ store.Thread, err error) {
	const op = "UpdateThread"
	defer unconfirmed(ctx, op, &err)
	set, del, err := splitMerge(metadata)
	if err != nil {
		return store.Thread{}, &memerr.Error{Code: memerr.CodeInvalidArgument, Op: op, Msg: "metadata is not JSON", Err: err}
	}
	var t store.Thread
	at := now()
	err = retry(ctx, func() (err error) {
		t, err = scanThread(s.pool.QueryRow(ctx, s.q.updateThread, id, title, len(metadata) > 0, set, del, at))
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Thread{}, withOp(memerr.CodeThreadNotFound, op, "thread not found")
	}
	if err != nil {
		return store.Thread{}, wrap(ctx, op, err)
	}
	return t, nil
}

const updateThreadSQL = `
UPDATE {{schema}}.agentmem_threads SET
	title = COALESCE($2::text, title),
	metadata = CASE WHEN $3::bool THEN (COALESCE(metadata, '{}'::jsonb) || $4::jsonb) - $5::text[] ELSE metadata END,
	updated_at = $6
WHERE id = $1
RETURNING ` + threadCols

// DeleteThread removes a thread, its messages and its observations, in one
// transaction. A missing thread is no error.
func (s *Store) DeleteThread(ctx context.Context, id string) (err error) {
	const op = "DeleteThread"
	defer unconfirmed(ctx, op, &err)
	return wrap(ctx, op, retry(ctx, func() error {
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, s.q.deleteThread, id); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, s.q.deleteThreadObservations, id)
			return err
		})
	}))
}

// deleteThreadSQL deletes the thread; it waits for a SaveMessages or a
// PutObservations that holds the thread's lock. deleteThreadObservationsSQL
// then removes the thread's messages and observational memory as a separate
// statement, so that its snapshot sees what such a writer committed (one
// statement's snapshot would predate it and leave the rows behind for a
// later thread with the same id). A save that waited for the thread's lock
// finds it gone and is refused.
const (
	deleteThreadSQL             = `DELETE FROM {{schema}}.agentmem_threads WHERE id = $1`
	deleteThreadObservationsSQL = `
WITH g AS (DELETE FROM {{schema}}.agentmem_observation_generations WHERE key = 'thread:' || $1::text),
m AS (DELETE FROM {{schema}}.agentmem_messages WHERE thread_id = $1::text)
DELETE FROM {{schema}}.agentmem_observations WHERE key = 'thread:' || $1::text`
)

// scanThread reads one row of threadCols.
func scanThread(row pgx.Row) (store.Thread, error) { return scanThreadWith(row, nil) }

// scanThreadWith reads threadCols followed by the extra destinations.
func scanThreadWith(row pgx.Row, extra ...any) (store.Thread, error) {
	var (
		t              store.Thread
		meta, boundary []byte
	)
	dest := []any{&t.ID, &t.ResourceID, &t.Title, &meta, &t.CreatedAt, &t.UpdatedAt, &boundary}
	for _, e := range extra {
		if e != nil {
			dest = append(dest, e)
		}
	}
	if err := row.Scan(dest...); err != nil {
		return store.Thread{}, err
	}
	t.CreatedAt, t.UpdatedAt = t.CreatedAt.UTC(), t.UpdatedAt.UTC()
	var err error
	if t.Metadata, err = decodeMap(meta); err != nil {
		return store.Thread{}, err
	}
	if t.Boundary, err = decodeBoundary(boundary); err != nil {
		return store.Thread{}, err
	}
	return t, nil
}

// encodeMap encodes metadata as a jsonb parameter (jsonArg); nil stays SQL
// NULL.
func encodeMap(m map[string]any) (any, error) {
	if m == nil {
		return nil, nil
	}
	b, err := json.Marshal(m)
	return jsonArg(b), err
}

// jsonArg passes JSON text as a jsonb parameter. pgx sends a []byte as
// bytea when it does not know a parameter's type (QueryExecModeExec and
// QueryExecModeSimpleProtocol, the modes for transaction-pooling proxies),
// which jsonb refuses; a string is JSON text in every mode.
func jsonArg(b []byte) string { return string(b) }

// decodeMap decodes a jsonb object; SQL NULL and JSON null give nil.
func decodeMap(b []byte) (map[string]any, error) {
	if len(b) == 0 || bytes.Equal(b, []byte("null")) {
		return nil, nil
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// splitMerge splits a shallow-merge patch into the object to merge and the
// keys to delete (those with a nil value).
func splitMerge(patch map[string]any) (set string, del []string, err error) {
	keep := make(map[string]any, len(patch))
	del = []string{}
	for k, v := range patch {
		if v == nil {
			del = append(del, k)
		} else {
			keep[k] = v
		}
	}
	b, err := json.Marshal(keep)
	return jsonArg(b), del, err
}

// timeOrZero converts a nullable timestamptz to a UTC time (zero when NULL).
func timeOrZero(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}
