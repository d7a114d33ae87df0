package pgvector

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/analysis"

	"github.com/jackc/pgx/v5"
	pgv "github.com/pgvector/pgvector-go"
)

// rows is an Upsert's records as the column arrays of one INSERT.
type rows struct {
	resource, id, thread, message, role, keywords, embedding []string
	createdAt                                                []time.Time
	metadata                                                 []*string
	terms                                                    []int32
}

// Upsert writes recs, replacing records of the same id within their
// resource, in one transaction. Every record is checked first (ids, a vector
// of the index's dimension with finite values, no NUL in ids): a bad one
// fails the call before anything is written. A resource written with
// another index version fails it with memerr.ErrIndexVersionMismatch.
func (s *Store) Upsert(ctx context.Context, index string, recs []vector.Record) error {
	const op = "Upsert"
	w, err := s.upsertWrite(ctx, op, index, recs)
	if err != nil || w == nil {
		return err
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return vector.Fail("pgvector."+op, "connect", err)
	}
	defer conn.Release()
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	// The resources' versions come back to be checked before COMMIT.
	var versions []resourceVersion
	b.Queue(w.lock+`
RETURNING resource_id, version, (SELECT version FROM `+s.sql("{{schema}}.vector_indexes")+` WHERE name = $1)`, w.lockArgs...).Query(func(rows pgx.Rows) error {
		var err error
		versions, err = pgx.CollectRows(rows, pgx.RowToStructByPos[resourceVersion])
		return err
	})
	for _, st := range w.writes {
		b.Queue(st.SQL, st.Args...)
	}
	err = conn.SendBatch(ctx, b).Close()
	if err == nil {
		err = checkVersions(op, index, versions)
	}
	if err != nil {
		_, _ = conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
		var me *memerr.Error
		if errors.As(err, &me) {
			return err
		}
		return vector.Fail("pgvector."+op, "write to index "+index, err)
	}
	if _, err := conn.Exec(ctx, "COMMIT"); err != nil {
		return vector.Fail("pgvector."+op, "commit", err)
	}
	s.noteWrites(w.table, w.resources, w.counts)
	return nil
}

// Database implements vector.StatementWriter: the identity of the database
// and role the store's pool reaches (see the message store's Database), or
// the pool itself when that could not be read.
func (s *Store) Database() any {
	if s.db != "" {
		return s.db
	}
	return s.pool
}

// UpsertStatements implements vector.StatementWriter: Upsert's statements,
// for a transaction of the message store on the same pool. The transaction
// cannot be looked at before it commits (it is sent with the messages'
// statement and ends at the one Sync), so the version check runs on the
// server: the first statement fails, aborting the transaction, when a
// resource was written with another index version (vector_check_version,
// migrations/0003).
func (s *Store) UpsertStatements(ctx context.Context, index string, recs []vector.Record) ([]store.Statement, error) {
	w, err := s.upsertWrite(ctx, "UpsertStatements", index, recs)
	if err != nil || w == nil {
		return nil, err
	}
	lock := store.Statement{SQL: w.lock + s.sql(`
RETURNING {{schema}}.vector_check_version($1, resource_id, version, (SELECT version FROM {{schema}}.vector_indexes WHERE name = $1))`),
		Args: w.lockArgs}
	// The cache learns of the writes before they commit: a sample taken
	// meanwhile is retaken a little early, never kept too long.
	s.noteWrites(w.table, w.resources, w.counts)
	return append([]store.Statement{lock}, w.writes...), nil
}

// upsertWrite is what an Upsert of recs writes, in order: lock (a statement
// without its RETURNING clause) inserts or locks the resources' rows, in id
// order, creating the missing ones with the index's version, so that
// writers of one resource serialise and its counts stay exact; writes
// replace the records and update the counts. It is nil when recs is empty;
// a bad record fails it.
func (s *Store) upsertWrite(ctx context.Context, op, index string, recs []vector.Record) (*upsertWrite, error) {
	if len(recs) == 0 {
		return nil, nil
	}
	ix, err := s.checkRecords(ctx, op, index, recs)
	if err != nil {
		return nil, err
	}
	rs, resources, counts, terms := collect(recs)
	qt := s.qtable(ix)
	return &upsertWrite{
		lock: s.sql(`INSERT INTO {{schema}}.vector_resources (index_name, resource_id, version)
SELECT $1, r, i.version FROM unnest($2::text[]) AS r, {{schema}}.vector_indexes AS i WHERE i.name = $1 ORDER BY r
ON CONFLICT (index_name, resource_id) DO UPDATE SET version = vector_resources.version`),
		lockArgs: []any{index, resources},
		table:    ix.table, resources: resources, counts: counts,
		writes: []store.Statement{{SQL: `WITH old AS (
	DELETE FROM ` + qt + ` AS t USING unnest($2::text[], $3::text[]) AS u(resource_id, id)
	WHERE t.resource_id = u.resource_id AND t.id = u.id RETURNING t.resource_id, t.terms
), o AS (SELECT resource_id, count(*) AS n, sum(terms) AS t FROM old GROUP BY resource_id)
UPDATE ` + s.sql("{{schema}}.vector_resources") + ` AS v SET records = v.records + u.n - coalesce(o.n, 0), terms = v.terms + u.t - coalesce(o.t, 0)
FROM unnest($4::text[], $5::bigint[], $6::bigint[]) AS u(resource_id, n, t) LEFT JOIN o USING (resource_id)
WHERE v.index_name = $1 AND v.resource_id = u.resource_id`, Args: []any{index, rs.resource, rs.id, resources, counts, terms}},
			{SQL: `INSERT INTO ` + qt + ` (resource_id, id, thread_id, message_id, role, created_at, keywords, terms, embedding, metadata)
SELECT r, i, th, m, ro, c, k::tsvector, n, e::` + ix.storage + `, md::jsonb FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::text[], $8::int[], $9::text[], $10::text[]) AS u(r, i, th, m, ro, c, k, n, e, md)`,
				Args: []any{rs.resource, rs.id, rs.thread, rs.message, rs.role, rs.createdAt, rs.keywords, rs.terms, rs.embedding, rs.metadata}}},
	}, nil
}

// upsertWrite is the SQL of an Upsert (see Store.upsertWrite).
type upsertWrite struct {
	lock     string
	lockArgs []any
	writes   []store.Statement
	// table, resources and counts are what the term-sample cache is told.
	table     string
	resources []string
	counts    []int64
}

// checkRecords checks what PostgreSQL adds to vector.Checked's checks of
// recs (no NUL in ids, a vector of the index's dimension) and returns the
// index's table.
func (s *Store) checkRecords(ctx context.Context, op, index string, recs []vector.Record) (tableInfo, error) {
	for _, r := range recs {
		if hasNUL(r.ID, r.Meta.ResourceID, r.Meta.ThreadID, r.Meta.MessageID, string(r.Meta.Role)) {
			return tableInfo{}, vector.Fail("pgvector."+op, "record "+strconv.Quote(r.ID)+": ids cannot hold NUL characters", memerr.ErrInvalidArgument)
		}
	}
	ix, err := s.table(ctx, op, index)
	if err != nil {
		return ix, err
	}
	for _, r := range recs {
		if len(r.Vector) != ix.dim {
			return ix, vector.DimensionError("pgvector."+op, index, ix.dim, len(r.Vector))
		}
	}
	return ix, nil
}

// resourceVersion is a resource's recorded version and its index's.
type resourceVersion struct {
	Resource, Version string
	Index             *string
}

func checkVersions(op, index string, vs []resourceVersion) error {
	for _, v := range vs {
		if v.Index != nil && v.Version != *v.Index {
			return vector.VersionError("pgvector."+op, "index "+index, v.Resource, v.Version, *v.Index)
		}
	}
	return nil
}

// collect turns recs into column arrays, the last of equal (resource, id)
// winning, and counts records and keyword terms per resource (sorted).
func collect(recs []vector.Record) (rs rows, resources []string, counts, terms []int64) {
	type key struct{ r, id string }
	last := make(map[key]int, len(recs))
	for i, r := range recs {
		last[key{r.Meta.ResourceID, r.ID}] = i
	}
	per := map[string][2]int64{}
	for i, r := range recs {
		if last[key{r.Meta.ResourceID, r.ID}] != i {
			continue
		}
		kw, n := tsvector(r.Keywords, r.Text)
		rs.resource = append(rs.resource, r.Meta.ResourceID)
		rs.id = append(rs.id, r.ID)
		rs.thread = append(rs.thread, r.Meta.ThreadID)
		rs.message = append(rs.message, r.Meta.MessageID)
		rs.role = append(rs.role, string(r.Meta.Role))
		rs.createdAt = append(rs.createdAt, r.Meta.CreatedAt)
		rs.keywords = append(rs.keywords, kw)
		rs.terms = append(rs.terms, int32(n))
		rs.embedding = append(rs.embedding, pgv.NewVector(r.Vector).String())
		rs.metadata = append(rs.metadata, metadataJSON(r.Meta.Metadata))
		c := per[r.Meta.ResourceID]
		per[r.Meta.ResourceID] = [2]int64{c[0] + 1, c[1] + int64(n)}
	}
	for r := range per {
		resources = append(resources, r)
	}
	sort.Strings(resources)
	for _, r := range resources {
		counts = append(counts, per[r][0])
		terms = append(terms, per[r][1])
	}
	return rs, resources, counts, terms
}

// Limits of a tsvector: a lexeme's bytes, a position, positions per lexeme,
// and the bytes of its lexemes and positions together (PostgreSQL's
// MAXSTRPOS; beyond it the cast fails with "string is too long for
// tsvector", SQLSTATE 54000).
const (
	maxLexeme    = 2046
	maxPosition  = 16383
	maxPositions = 256
	maxTSVector  = 1<<20 - 1
)

// Bytes a tsvector spends on a lexeme besides its text (alignment and the
// position count, rounded up) and on each of its positions.
const (
	lexemeOverhead = 4
	positionBytes  = 2
)

// tsvector returns the tsvector literal of a record's keywords (its
// analyzed Keywords, else the plain terms of its text), each term a lexeme
// as is with its positions, and the number of terms (the BM25 length). The
// literal is cast, not parsed by a text search configuration, so lexemes
// are exactly the analyzer's terms. A text whose terms would pass
// maxTSVector keeps its first ones: a record is always written, and Memory
// chunks long messages, so only a record of more than about 100,000
// distinct terms loses any.
func tsvector(keywords, text string) (string, int) {
	var ts []string
	if keywords != "" {
		ts = strings.Fields(keywords)
	} else {
		ts = analysis.Plain.Terms(text)
	}
	pos := map[string][]int{}
	var order []string
	n, size := 0, 0
	for _, t := range ts {
		t = strings.ReplaceAll(t, "\x00", "")
		if t == "" || len(t) > maxLexeme {
			continue
		}
		n++
		cost := positionBytes
		if _, ok := pos[t]; !ok {
			cost += len(t) + lexemeOverhead
		}
		if len(pos[t]) >= maxPositions || size+cost > maxTSVector {
			continue
		}
		if _, ok := pos[t]; !ok {
			order = append(order, t)
		}
		size += cost
		pos[t] = append(pos[t], min(n, maxPosition))
	}
	var b strings.Builder
	for i, t := range order {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(lexeme(t))
		b.WriteByte(':')
		for j, p := range pos[t] {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(p))
		}
	}
	return b.String(), n
}

// lexeme quotes a term for a tsvector or tsquery literal.
func lexeme(t string) string {
	var b strings.Builder
	b.Grow(len(t) + 2)
	b.WriteByte('\'')
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '\\':
			b.WriteByte('\\')
		case '\'':
			b.WriteByte('\'')
		}
		b.WriteByte(t[i])
	}
	b.WriteByte('\'')
	return b.String()
}

func hasNUL(ss ...string) bool {
	for _, s := range ss {
		if strings.IndexByte(s, 0) >= 0 {
			return true
		}
	}
	return false
}

// Delete removes the records of f.ResourceID, narrowed to f.ThreadID and/or
// f.MessageIDs when set. Deleting a whole resource (only ResourceID) also
// clears its version. Unknown ids, resources and indexes are no error.
func (s *Store) Delete(ctx context.Context, index string, f vector.Filter) error {
	const op = "Delete"
	ix, err := s.table(ctx, op, index)
	if errors.Is(err, errNoIndex) {
		return nil
	}
	if err != nil {
		return err
	}
	qt, qr := s.qtable(ix), s.sql("{{schema}}.vector_resources")
	if f.ThreadID == "" && len(f.MessageIDs) == 0 {
		// The resource's row first, as writers lock it first.
		b := &pgx.Batch{}
		b.Queue("DELETE FROM "+qr+" WHERE index_name = $1 AND resource_id = $2", index, f.ResourceID)
		b.Queue("DELETE FROM "+qt+" WHERE resource_id = $1", f.ResourceID)
		err := s.pool.SendBatch(ctx, b).Close()
		s.noteWrites(ix.table, []string{f.ResourceID}, nil)
		if err != nil {
			return vector.Fail("pgvector."+op, "delete resource", err)
		}
		return nil
	}
	ids := f.MessageIDs
	if ids == nil {
		ids = []string{}
	}
	_, err = s.pool.Exec(ctx, `WITH l AS (SELECT 1 FROM `+qr+` WHERE index_name = $1 AND resource_id = $2 FOR UPDATE),
d AS (DELETE FROM `+qt+` WHERE EXISTS (SELECT 1 FROM l) AND resource_id = $2 AND ($3 = '' OR thread_id = $3)
	AND (cardinality($4::text[]) = 0 OR message_id = ANY($4::text[])) RETURNING terms)
UPDATE `+qr+` SET records = records - (SELECT count(*) FROM d), terms = terms - (SELECT coalesce(sum(terms), 0) FROM d)
WHERE index_name = $1 AND resource_id = $2`, index, f.ResourceID, f.ThreadID, ids)
	s.noteWrites(ix.table, []string{f.ResourceID}, nil)
	if err != nil {
		return vector.Fail("pgvector."+op, "delete", err)
	}
	return nil
}
