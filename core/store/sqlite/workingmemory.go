package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
)

const resourceCols = `id, working_memory, metadata, created_at, updated_at`

func getResource(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, op, id string) (store.Resource, error) {
	r, err := scanResource(q.QueryRowContext(ctx, `SELECT `+resourceCols+` FROM resources WHERE id = ?`, id).Scan)
	if errors.Is(err, sql.ErrNoRows) {
		return r, memerr.Errorf(memerr.CodeNotFound, op, "resource %q not found", id)
	}
	return r, err
}

// scanResource reads one row of resourceCols through scan.
func scanResource(scan func(...any) error) (store.Resource, error) {
	var (
		r                store.Resource
		wm, meta         sql.NullString
		created, updated int64
	)
	if err := scan(&r.ID, &wm, &meta, &created, &updated); err != nil {
		return r, err
	}
	r.WorkingMemory, r.CreatedAt, r.UpdatedAt = wm.String, fromMicro(created), fromMicro(updated)
	var err error
	r.Metadata, err = decodeMeta(meta)
	return r, err
}

// ListResources implements store.ResourceLister: one keyset page by id.
func (s *Store) ListResources(ctx context.Context, q store.ResourceQuery) (store.ResourcePage, error) {
	const op = "ListResources"
	q, err := store.NormalizeResourceQuery(q)
	if err != nil {
		return store.ResourcePage{}, err
	}
	rows, err := s.r.QueryContext(ctx, `SELECT `+resourceCols+` FROM resources WHERE id > ? ORDER BY id LIMIT ?`, q.After, q.PerPage+1)
	if err != nil {
		return store.ResourcePage{}, withOp(op, err)
	}
	defer rows.Close()
	var page store.ResourcePage
	for rows.Next() {
		r, err := scanResource(rows.Scan)
		if err != nil {
			return store.ResourcePage{}, withOp(op, err)
		}
		page.Resources = append(page.Resources, r)
	}
	if err := rows.Err(); err != nil {
		return store.ResourcePage{}, withOp(op, err)
	}
	if len(page.Resources) > q.PerPage {
		page.Resources, page.HasMore = page.Resources[:q.PerPage], true
	}
	return page, nil
}

// GetResource returns the resource or memerr.ErrNotFound.
func (s *Store) GetResource(ctx context.Context, id string) (store.Resource, error) {
	const op = "GetResource"
	r, err := getResource(ctx, s.r, op, id)
	return r, withOp(op, err)
}

// UpdateResource creates the resource if missing and shallow-merges metadata
// (a nil value deletes the key).
func (s *Store) UpdateResource(ctx context.Context, id string, metadata map[string]any) (store.Resource, error) {
	const op = "UpdateResource"
	var out store.Resource
	err := s.write(ctx, op, func(tx *sql.Tx) error {
		now := s.stamp()
		r, err := getResource(ctx, tx, op, id)
		missing := errors.Is(err, memerr.ErrNotFound)
		if err != nil && !missing {
			return err
		}
		meta, err := encodeMeta(op, store.MergeMetadata(r.Metadata, metadata))
		if err != nil {
			return err
		}
		if missing {
			_, err = tx.ExecContext(ctx, `INSERT INTO resources (id, metadata, created_at, updated_at) VALUES (?, ?, ?, ?)`,
				id, meta, now, now)
		} else {
			_, err = tx.ExecContext(ctx, `UPDATE resources SET metadata = ?, updated_at = ? WHERE id = ?`, meta, now, id)
		}
		if err != nil {
			return err
		}
		out, err = getResource(ctx, tx, op, id)
		return err
	})
	return out, err
}

// wmTable returns the table holding working memory of scope.
func wmTable(op string, scope store.Scope) (string, error) {
	switch scope {
	case store.ScopeThread:
		return "threads", nil
	case store.ScopeResource:
		return "resources", nil
	}
	return "", memerr.Errorf(memerr.CodeInvalidArgument, op, "unknown scope %q", scope)
}

func getWM(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, op string, scope store.Scope, id string) (wm store.WorkingMemory, found bool, err error) {
	table, err := wmTable(op, scope)
	if err != nil {
		return wm, false, err
	}
	var data sql.NullString
	var updated sql.NullInt64
	err = q.QueryRowContext(ctx, `SELECT working_memory, wm_version, wm_updated_at FROM `+table+` WHERE id = ?`, id).
		Scan(&data, &wm.Version, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return store.WorkingMemory{}, false, nil
	}
	if err != nil {
		return wm, false, err
	}
	wm.Data = data.String
	if updated.Valid {
		wm.UpdatedAt = fromMicro(updated.Int64)
	}
	return wm, true, nil
}

// GetWorkingMemory returns the working memory of a thread or resource; a
// never-written one has Version 0. A missing thread is memerr.ErrThreadNotFound.
func (s *Store) GetWorkingMemory(ctx context.Context, scope store.Scope, id string) (store.WorkingMemory, error) {
	const op = "GetWorkingMemory"
	wm, found, err := getWM(ctx, s.r, op, scope, id)
	if err != nil {
		return store.WorkingMemory{}, withOp(op, err)
	}
	if !found && scope == store.ScopeThread {
		return store.WorkingMemory{}, memerr.Errorf(memerr.CodeThreadNotFound, op, "thread %q not found", id)
	}
	return wm, nil
}

// PutWorkingMemory stores data if the current version equals expectVersion
// (else memerr.ErrConflict) and returns the new version. Resource scope creates
// the resource; thread scope needs the thread.
func (s *Store) PutWorkingMemory(ctx context.Context, scope store.Scope, id, data string, expectVersion int64) (store.WorkingMemory, error) {
	const op = "PutWorkingMemory"
	table, err := wmTable(op, scope)
	if err != nil {
		return store.WorkingMemory{}, err
	}
	var out store.WorkingMemory
	err = s.write(ctx, op, func(tx *sql.Tx) error {
		cur, found, err := getWM(ctx, tx, op, scope, id)
		if err != nil {
			return err
		}
		if !found && scope == store.ScopeThread {
			return memerr.Errorf(memerr.CodeThreadNotFound, op, "thread %q not found", id)
		}
		if cur.Version != expectVersion {
			return memerr.Errorf(memerr.CodeConflict, op, "working memory of %s %q is at version %d, not %d", scope, id, cur.Version, expectVersion)
		}
		now := s.stamp()
		out = store.WorkingMemory{Data: data, Version: cur.Version + 1, UpdatedAt: fromMicro(now)}
		if !found { // resource scope
			_, err = tx.ExecContext(ctx, `INSERT INTO resources (id, working_memory, wm_version, wm_updated_at, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?)`, id, data, out.Version, now, now, now)
			return err
		}
		set := `working_memory = ?, wm_version = ?, wm_updated_at = ?`
		args := []any{data, out.Version, now}
		if table == "resources" {
			set += `, updated_at = ?`
			args = append(args, now)
		}
		_, err = tx.ExecContext(ctx, `UPDATE `+table+` SET `+set+` WHERE id = ?`, append(args, id)...)
		return err
	})
	if err != nil {
		return store.WorkingMemory{}, err
	}
	return out, nil
}
