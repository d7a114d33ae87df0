package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"

	"github.com/jackc/pgx/v5"
)

const resourceCols = "id, COALESCE(working_memory, ''), metadata, created_at, updated_at"

// GetResource returns the resource or ErrNotFound.
func (s *Store) GetResource(ctx context.Context, id string) (store.Resource, error) {
	const op = "GetResource"
	r, err := scanResource(s.pool.QueryRow(ctx, s.q.getResource, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Resource{}, withOp(memerr.CodeNotFound, op, "resource not found")
	}
	if err != nil {
		return store.Resource{}, wrap(ctx, op, err)
	}
	return r, nil
}

// ListResources implements store.ResourceLister: one keyset page by id.
func (s *Store) ListResources(ctx context.Context, q store.ResourceQuery) (store.ResourcePage, error) {
	const op = "ListResources"
	q, err := store.NormalizeResourceQuery(q)
	if err != nil {
		return store.ResourcePage{}, err
	}
	rows, err := s.pool.Query(ctx, s.q.listResources, q.After, q.PerPage+1)
	if err != nil {
		return store.ResourcePage{}, wrap(ctx, op, err)
	}
	defer rows.Close()
	var page store.ResourcePage
	for rows.Next() {
		r, err := scanResource(rows)
		if err != nil {
			return store.ResourcePage{}, wrap(ctx, op, err)
		}
		page.Resources = append(page.Resources, r)
	}
	if err := rows.Err(); err != nil {
		return store.ResourcePage{}, wrap(ctx, op, err)
	}
	if len(page.Resources) > q.PerPage {
		page.Resources, page.HasMore = page.Resources[:q.PerPage], true
	}
	return page, nil
}

// listResourcesSQL walks the primary key: ids order by bytes, as in the
// other stores, because the column is COLLATE "C" (migration 0007).
const listResourcesSQL = `SELECT ` + resourceCols + ` FROM {{schema}}.agentmem_resources
WHERE id > $1 ORDER BY id LIMIT $2`

const getResourceSQL = `SELECT ` + resourceCols + ` FROM {{schema}}.agentmem_resources WHERE id = $1`

// UpdateResource creates the resource if missing and shallow-merges metadata
// (a nil value deletes the key), in one upsert.
func (s *Store) UpdateResource(ctx context.Context, id string, metadata map[string]any) (_ store.Resource, err error) {
	const op = "UpdateResource"
	defer unconfirmed(ctx, op, &err)
	set, del, err := splitMerge(metadata)
	if err != nil {
		return store.Resource{}, &memerr.Error{Code: memerr.CodeInvalidArgument, Op: op, Msg: "metadata is not JSON", Err: err}
	}
	var r store.Resource
	at := now()
	err = retry(ctx, func() (err error) {
		r, err = scanResource(s.pool.QueryRow(ctx, s.q.updateResource, id, metadata != nil, set, del, at))
		return err
	})
	if err != nil {
		return store.Resource{}, wrap(ctx, op, err)
	}
	return r, nil
}

const updateResourceSQL = `
INSERT INTO {{schema}}.agentmem_resources AS r (id, metadata, created_at, updated_at)
VALUES ($1, CASE WHEN $2::bool THEN $3::jsonb END, $5, $5)
ON CONFLICT (id) DO UPDATE SET
	metadata = CASE WHEN $2::bool THEN (COALESCE(r.metadata, '{}'::jsonb) || $3::jsonb) - $4::text[] ELSE r.metadata END,
	updated_at = excluded.updated_at
RETURNING ` + resourceCols

// GetWorkingMemory returns the working memory of a thread or resource; a
// never-written one has Version 0. A missing thread is ErrThreadNotFound; a
// missing resource is simply never written.
func (s *Store) GetWorkingMemory(ctx context.Context, scope store.Scope, id string) (store.WorkingMemory, error) {
	const op = "GetWorkingMemory"
	sql, err := s.wmQuery(op, scope, id, s.q.getThreadWM, s.q.getResourceWM)
	if err != nil {
		return store.WorkingMemory{}, err
	}
	var (
		wm store.WorkingMemory
		at *time.Time
	)
	err = s.pool.QueryRow(ctx, sql, id).Scan(&wm.Data, &wm.Version, &at)
	switch {
	case errors.Is(err, pgx.ErrNoRows) && scope == store.ScopeThread:
		return store.WorkingMemory{}, withOp(memerr.CodeThreadNotFound, op, "thread not found")
	case errors.Is(err, pgx.ErrNoRows):
		return store.WorkingMemory{}, nil
	case err != nil:
		return store.WorkingMemory{}, wrap(ctx, op, err)
	}
	wm.UpdatedAt = timeOrZero(at)
	return wm, nil
}

const (
	getThreadWMSQL   = `SELECT COALESCE(working_memory, ''), wm_version, wm_updated_at FROM {{schema}}.agentmem_threads WHERE id = $1`
	getResourceWMSQL = `SELECT COALESCE(working_memory, ''), wm_version, wm_updated_at FROM {{schema}}.agentmem_resources WHERE id = $1`
)

// PutWorkingMemory stores data if the current version equals expectVersion,
// as one compare-and-set statement, and returns the new version; otherwise
// ErrConflict. Resource scope creates the resource (expectVersion 0); thread
// scope needs the thread (ErrThreadNotFound).
func (s *Store) PutWorkingMemory(ctx context.Context, scope store.Scope, id, data string, expectVersion int64) (_ store.WorkingMemory, err error) {
	const op = "PutWorkingMemory"
	defer unconfirmed(ctx, op, &err)
	sql, err := s.wmQuery(op, scope, id, s.q.putThreadWM, s.q.putResourceWM)
	if err != nil {
		return store.WorkingMemory{}, err
	}
	var (
		version *int64
		at      *time.Time
		exists  bool
	)
	ts := now()
	if err := retry(ctx, func() error {
		return s.pool.QueryRow(ctx, sql, id, data, expectVersion, ts).Scan(&version, &at, &exists)
	}); err != nil {
		return store.WorkingMemory{}, wrap(ctx, op, err)
	}
	if version == nil {
		if scope == store.ScopeThread && !exists {
			return store.WorkingMemory{}, withOp(memerr.CodeThreadNotFound, op, "thread not found")
		}
		return store.WorkingMemory{}, withOp(memerr.CodeConflict, op, "working memory version changed")
	}
	return store.WorkingMemory{Data: data, Version: *version, UpdatedAt: timeOrZero(at)}, nil
}

// The subqueries outside u read the snapshot before the update, so exists
// tells a conflict from a missing row within the same round trip.
const (
	putThreadWMSQL = `
WITH u AS (
	UPDATE {{schema}}.agentmem_threads SET working_memory = $2, wm_version = wm_version + 1, wm_updated_at = $4, updated_at = $4
	WHERE id = $1 AND wm_version = $3::bigint
	RETURNING wm_version, wm_updated_at
)
SELECT (SELECT wm_version FROM u), (SELECT wm_updated_at FROM u),
	EXISTS (SELECT 1 FROM {{schema}}.agentmem_threads WHERE id = $1)`

	putResourceWMSQL = `
WITH u AS (
	INSERT INTO {{schema}}.agentmem_resources AS r (id, working_memory, wm_version, wm_updated_at, created_at, updated_at)
	SELECT $1, $2, 1, $4, $4, $4
	WHERE $3::bigint = 0 OR EXISTS (SELECT 1 FROM {{schema}}.agentmem_resources WHERE id = $1)
	ON CONFLICT (id) DO UPDATE SET
		working_memory = excluded.working_memory, wm_version = r.wm_version + 1,
		wm_updated_at = excluded.wm_updated_at, updated_at = excluded.updated_at
	WHERE r.wm_version = $3::bigint
	RETURNING r.wm_version, r.wm_updated_at
)
SELECT (SELECT wm_version FROM u), (SELECT wm_updated_at FROM u),
	EXISTS (SELECT 1 FROM {{schema}}.agentmem_resources WHERE id = $1)`
)

// wmQuery picks the statement for the scope.
func (s *Store) wmQuery(op string, scope store.Scope, id, thread, resource string) (string, error) {
	switch scope {
	case store.ScopeThread:
		return thread, nil
	case store.ScopeResource:
		return resource, nil
	}
	return "", memerr.Errorf(memerr.CodeInvalidArgument, op, "scope must be %q or %q, got %q", store.ScopeThread, store.ScopeResource, scope)
}

// scanResource reads one row of resourceCols.
func scanResource(row pgx.Row) (store.Resource, error) {
	var (
		r    store.Resource
		meta []byte
	)
	if err := row.Scan(&r.ID, &r.WorkingMemory, &meta, &r.CreatedAt, &r.UpdatedAt); err != nil {
		return store.Resource{}, err
	}
	r.CreatedAt, r.UpdatedAt = r.CreatedAt.UTC(), r.UpdatedAt.UTC()
	var err error
	r.Metadata, err = decodeMap(meta)
	return r, err
}
