package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// ListWindow implements store.WindowReader: one statement listing the page
// in index order with only the columns a window needs (the thread's id, and
// the resource's when q names it, are q's), the contents kept as stored in
// a few shared blocks; store.DecodeWindow then decodes the rows fit selects.
func (s *Store) ListWindow(ctx context.Context, q store.MessageQuery, fit store.WindowFit) (store.WindowPage, error) {
	const op = "ListWindow"
	page := store.WindowPage{MessagePage: store.MessagePage{Messages: []message.Message{}}}
	if q.PerPage == 0 {
		return page, nil
	}
	sql, args := s.windowSQL(q)
	rows, done, err := s.queryIndexOrder(ctx, windowGuard, sql, args...)
	if err != nil {
		return store.WindowPage{}, wrap(ctx, op, err)
	}
	defer func() { rows.Close(); _ = done() }()
	if q.PerPage > 0 {
		page.Messages = make([]message.Message, 0, min(q.PerPage+1, 1024))
	}
	var (
		w        = newWindowRow(q, fit.Encoding)
		contents = make([][]byte, 0, cap(page.Messages))
		copies   arena
	)
	for rows.Next() {
		if err := rows.Scan(w.dest...); err != nil {
			rows.Close()
			return store.WindowPage{}, wrap(ctx, op, err)
		}
		page.Messages, contents = append(page.Messages, w.message()), append(contents, copies.copy(w.content))
	}
	if err := rows.Err(); err != nil {
		return store.WindowPage{}, wrap(ctx, op, err)
	}
	if q.PerPage > 0 && len(page.Messages) > q.PerPage {
		page.Messages, contents, page.HasMore = page.Messages[:q.PerPage], contents[:q.PerPage], true
	}
	if page.Bare, err = store.DecodeWindow(fit, page.Messages, contents, decodeContent); err != nil {
		return store.WindowPage{}, wrap(ctx, op, err)
	}
	return page, nil
}

// windowSQL is ListMessages' page statement for q with the columns of
// windowRow: the same filter, order and LIMIT, so the same index range scan.
func (s *Store) windowSQL(q store.MessageQuery) (string, []any) {
	var args params
	cols, resource := "m.id, m.role, m.type, m.content, m.created_at, m.tokens, m.token_encoding, m.seq", ""
	if q.ResourceID != "" {
		resource = args.add(q.ResourceID) + "::text"
	} else {
		cols += ", m.resource_id"
	}
	sql := s.pageSQL(q, cols, pageFilter(q, resource, args.add), args.add)
	return sql, args
}

// windowRow is the scan destination of one row of windowSQL, reused for
// every row: the content stays in the driver's memory until the next row,
// and role, type and token encoding, which repeat, are shared strings.
type windowRow struct {
	threadID, resourceID string
	id                   string
	role, typ, encoding  known
	content              pgtype.DriverBytes
	createdAt            time.Time
	tokens               int32
	seq                  int64
	dest                 []any
}

func newWindowRow(q store.MessageQuery, encoding string) *windowRow {
	w := &windowRow{threadID: q.ThreadID, resourceID: q.ResourceID,
		role:     known{values: []string{string(message.RoleUser), string(message.RoleAssistant), string(message.RoleSystem), string(message.RoleSignal)}},
		typ:      known{values: []string{""}},
		encoding: known{values: []string{encoding}},
	}
	w.dest = []any{&w.id, &w.role, &w.typ, &w.content, &w.createdAt, &w.tokens, &w.encoding, &w.seq}
	if q.ResourceID == "" {
		w.dest = append(w.dest, &w.resourceID)
	}
	return w
}

// message returns the scanned row without its content.
func (w *windowRow) message() message.Message {
	return message.Message{ID: w.id, ThreadID: w.threadID, ResourceID: w.resourceID, Role: message.Role(w.role.v), Type: w.typ.v,
		CreatedAt: w.createdAt.UTC(), Tokens: int(w.tokens), TokenEncoding: w.encoding.v, Seq: w.seq}
}

// known scans a text column whose value is usually one of values without
// allocating for those.
type known struct {
	values []string
	v      string
}

// ScanBytes implements pgtype.BytesScanner.
func (k *known) ScanBytes(b []byte) error {
	for _, v := range k.values {
		if string(b) == v {
			k.v = v
			return nil
		}
	}
	k.v = string(b)
	return nil
}

// arena copies byte slices into shared blocks: one allocation for many
// small rows, none of them moved once copied.
type arena struct{ free []byte }

// arenaBlock is the size of a block; a longer slice gets a block of its own.
const arenaBlock = 32 << 10

func (a *arena) copy(b []byte) []byte {
	if cap(a.free)-len(a.free) < len(b) {
		a.free = make([]byte, 0, max(len(b), arenaBlock))
	}
	a.free = append(a.free, b...)
	return a.free[len(a.free)-len(b) : len(a.free) : len(a.free)]
}
