package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
)

const threadCols = `id, resource_id, title, metadata, created_at, updated_at, boundary`

func scanThread(sc scanner) (store.Thread, error) {
	var (
		t                  store.Thread
		meta, boundary     sql.NullString
		created, updatedAt int64
	)
	if err := sc.Scan(&t.ID, &t.ResourceID, &t.Title, &meta, &created, &updatedAt, &boundary); err != nil {
		return t, err
	}
	t.CreatedAt, t.UpdatedAt = fromMicro(created), fromMicro(updatedAt)
	var err error
	if t.Metadata, err = decodeMeta(meta); err != nil {
		return t, err
	}
	if boundary.Valid {
		var b store.Boundary
		if err := json.Unmarshal([]byte(boundary.String), &b); err != nil {
			return t, fmt.Errorf("decode boundary of thread %q: %w", t.ID, err)
		}
		t.Boundary = &b
	}
	return t, nil
}

func decodeMeta(s sql.NullString) (map[string]any, error) {
	if !s.Valid {
		return nil, nil
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(s.String), &m); err != nil {
		return nil, fmt.Errorf("decode metadata: %w", err)
	}
	return m, nil
}

// encodeMeta returns the JSON of m, or NULL for a nil map.
func encodeMeta(op string, m map[string]any) (any, error) {
	if m == nil {
		return nil, nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, memerr.Errorf(memerr.CodeInvalidArgument, op, "metadata is not JSON: %v", err)
	}
	return string(b), nil
}

// getThreadSQL selects a thread by id.
const getThreadSQL = `SELECT ` + threadCols + ` FROM threads WHERE id = ?`

func getThread(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, op, id string) (store.Thread, error) {
	t, err := scanThread(q.QueryRowContext(ctx, getThreadSQL, id))
	if errors.Is(err, sql.ErrNoRows) {
		return t, memerr.Errorf(memerr.CodeThreadNotFound, op, "thread %q not found", id)
	}
	return t, err
}

// SaveThread inserts or replaces a thread; an existing thread keeps its
// CreatedAt, Boundary and working memory and may not change resource.
func (s *Store) SaveThread(ctx context.Context, t store.Thread) (store.Thread, error) {
	return s.putThread(ctx, "SaveThread", t, false)
}

// CreateThread inserts t; an existing id (of any resource) is
// ErrThreadExists and nothing is written.
func (s *Store) CreateThread(ctx context.Context, t store.Thread) (store.Thread, error) {
	return s.putThread(ctx, "CreateThread", t, true)
}

func (s *Store) putThread(ctx context.Context, op string, t store.Thread, create bool) (store.Thread, error) {
	meta, err := encodeMeta(op, t.Metadata)
	if err != nil {
		return store.Thread{}, err
	}
	now := s.stamp()
	created, updated := now, now
	if !t.CreatedAt.IsZero() {
		created = t.CreatedAt.UTC().UnixMicro()
	}
	if !t.UpdatedAt.IsZero() {
		updated = t.UpdatedAt.UTC().UnixMicro()
	}
	var out store.Thread
	err = s.write(ctx, op, func(tx *sql.Tx) error {
		var owner string
		err := tx.QueryRowContext(ctx, `SELECT resource_id FROM threads WHERE id = ?`, t.ID).Scan(&owner)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			_, err = tx.ExecContext(ctx, `INSERT INTO threads (id, resource_id, title, metadata, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?)`, t.ID, t.ResourceID, t.Title, meta, created, updated)
		case err != nil:
		case create:
			return memerr.Errorf(memerr.CodeThreadExists, op, "thread %q already exists", t.ID)
		case owner != t.ResourceID:
			return memerr.Errorf(memerr.CodeResourceMismatch, op, "thread %q belongs to another resource", t.ID)
		default:
			_, err = tx.ExecContext(ctx, `UPDATE threads SET title = ?, metadata = ?, updated_at = ? WHERE id = ?`,
				t.Title, meta, updated, t.ID)
		}
		if err != nil {
			return err
		}
		out, err = getThread(ctx, tx, op, t.ID)
		return err
	})
	return out, err
}

// GetThread returns the thread or memerr.ErrThreadNotFound.
func (s *Store) GetThread(ctx context.Context, id string) (store.Thread, error) {
	const op = "GetThread"
	stmts, err := s.rstmts.get(ctx, getThreadSQL)
	if err != nil {
		return store.Thread{}, withOp(op, err)
	}
	t, err := getThread(ctx, preparedDB{db: s.r, stmts: stmts}, op, id)
	return t, withOp(op, err)
}

// ListThreads lists threads by resource and metadata, paged and ordered.
func (s *Store) ListThreads(ctx context.Context, q store.ThreadQuery) (store.ThreadPage, error) {
	const op = "ListThreads"
	where, args := threadFilter(q)
	limit, offset := int64(q.PerPage), int64(q.Page)*int64(q.PerPage)
	switch {
	case q.PerPage == store.PerPageAll:
		limit, offset = -1, 0
	case int64(q.Page) > math.MaxInt64/int64(q.PerPage):
		limit = 0 // a page beyond any table
	}
	page := store.ThreadPage{Page: q.Page, PerPage: q.PerPage}
	err := s.read(ctx, op, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM threads`+where, args...).Scan(&page.Total); err != nil {
			return err
		}
		if limit == 0 {
			return nil
		}
		rows, err := tx.QueryContext(ctx, `SELECT `+threadCols+` FROM threads`+where+
			` ORDER BY `+q.OrderSQL()+` LIMIT ? OFFSET ?`, append(args, limit, offset)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			t, err := scanThread(rows)
			if err != nil {
				return err
			}
			page.Threads = append(page.Threads, t)
		}
		return rows.Err()
	})
	if err != nil {
		return store.ThreadPage{}, err
	}
	page.HasMore = limit > 0 && offset+int64(len(page.Threads)) < int64(page.Total)
	return page, nil
}

// threadFilter builds the WHERE clause of ListThreads. Metadata keys are
// validated by NormalizeThreadQuery and still bound as parameters; json_type
// keeps types apart (true does not match 1, "1" does not match 1).
func threadFilter(q store.ThreadQuery) (string, []any) {
	var conds []string
	var args []any
	if q.ResourceID != "" {
		conds = append(conds, `resource_id = ?`)
		args = append(args, q.ResourceID)
	}
	names := make([]string, 0, len(q.Metadata))
	for k := range q.Metadata {
		names = append(names, k)
	}
	sort.Strings(names) // deterministic SQL text
	for _, k := range names {
		v := q.Metadata[k]
		const path = `'$.' || ?`
		switch x := v.(type) {
		case nil:
			conds = append(conds, `json_type(metadata, `+path+`) = 'null'`)
			args = append(args, k)
		case bool:
			want := "false"
			if x {
				want = "true"
			}
			conds = append(conds, `json_type(metadata, `+path+`) = ?`)
			args = append(args, k, want)
		case string:
			conds = append(conds, `json_type(metadata, `+path+`) = 'text' AND json_extract(metadata, `+path+`) = ?`)
			args = append(args, k, k, x)
		default: // numbers
			if f, ok := x.(float32); ok {
				v = float64(f)
			}
			conds = append(conds, `json_type(metadata, `+path+`) IN ('integer', 'real') AND json_extract(metadata, `+path+`) = ?`)
			args = append(args, k, k, v)
		}
	}
	if len(conds) == 0 {
		return "", nil
	}
	return ` WHERE ` + strings.Join(conds, ` AND `), args
}

// UpdateThread sets the title (when non-nil), shallow-merges metadata (a nil
// value deletes the key) and bumps UpdatedAt.
func (s *Store) UpdateThread(ctx context.Context, id string, title *string, metadata map[string]any) (store.Thread, error) {
	const op = "UpdateThread"
	var out store.Thread
	err := s.write(ctx, op, func(tx *sql.Tx) error {
		t, err := getThread(ctx, tx, op, id)
		if err != nil {
			return err
		}
		if title != nil {
			t.Title = *title
		}
		meta, err := encodeMeta(op, store.MergeMetadata(t.Metadata, metadata))
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE threads SET title = ?, metadata = ?, updated_at = ? WHERE id = ?`,
			t.Title, meta, s.stamp(), id); err != nil {
			return err
		}
		out, err = getThread(ctx, tx, op, id)
		return err
	})
	return out, err
}

// DeleteThread removes a thread, its messages and its observational memory;
// a missing thread is no error.
func (s *Store) DeleteThread(ctx context.Context, id string) error {
	const op = "DeleteThread"
	return s.write(ctx, op, func(tx *sql.Tx) error {
		key := store.ObservationKey(store.ScopeThread, id, "")
		for _, q := range []struct{ sql, arg string }{
			{`DELETE FROM messages WHERE thread_id = ?`, id},
			{`DELETE FROM observations WHERE key = ?`, key},
			{`DELETE FROM observation_generations WHERE key = ?`, key},
		} {
			if _, err := tx.ExecContext(ctx, q.sql, q.arg); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM threads WHERE id = ?`, id)
		return err
	})
}

// AdvanceBoundary merges cand into the thread's boundary with
// store.MergeBoundary inside one IMMEDIATE transaction and returns the result.
func (s *Store) AdvanceBoundary(ctx context.Context, threadID, resourceID string, cand store.Boundary) (store.Boundary, error) {
	const op = "AdvanceBoundary"
	var out store.Boundary
	err := s.write(ctx, op, func(tx *sql.Tx) error {
		t, err := getThread(ctx, tx, op, threadID)
		if err != nil {
			return err
		}
		if t.ResourceID != resourceID {
			return memerr.Errorf(memerr.CodeResourceMismatch, op, "thread %q belongs to another resource", threadID)
		}
		var first time.Time
		if cand.SeenSeq > 0 {
			var micros sql.NullInt64
			if err := tx.QueryRowContext(ctx, `SELECT MIN(created_at) FROM messages WHERE thread_id = ? AND seq > ?`,
				threadID, cand.SeenSeq).Scan(&micros); err != nil {
				return err
			}
			if micros.Valid {
				first = fromMicro(micros.Int64)
			}
		}
		cand = store.ClampBoundary(cand, t.Boundary, first)
		out = store.MergeBoundary(t.Boundary, cand)
		return putBoundary(ctx, tx, threadID, &out)
	})
	return out, err
}

// putBoundary stores a thread's boundary.
func putBoundary(ctx context.Context, tx querier, threadID string, b *store.Boundary) error {
	raw, err := json.Marshal(b)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE threads SET boundary = ? WHERE id = ?`, string(raw), threadID)
	return err
}

// pullBackBoundaries applies store.PullBack to each thread that got new
// messages, given the earliest CreatedAt (micros) inserted into it.
func pullBackBoundaries(ctx context.Context, tx querier, earliest map[string]int64) error {
	for _, id := range slices.Sorted(maps.Keys(earliest)) {
		t, err := getThread(ctx, tx, "SaveMessages", id)
		if err != nil {
			return err
		}
		if b := store.PullBack(t.Boundary, fromMicro(earliest[id])); b != t.Boundary {
			if err := putBoundary(ctx, tx, id, b); err != nil {
				return err
			}
		}
	}
	return nil
}
