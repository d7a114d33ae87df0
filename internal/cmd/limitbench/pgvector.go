package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/agentmem/agentmem/internal/benchdata"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	pgv "github.com/pgvector/pgvector-go"
)

// runPgvector inserts the messages' vectors (membench's hash embedder, 384
// dimensions) by plain SQL into a table with the indexes named (those
// core/vector/pgvector keeps for an index): "hnsw", the HNSW index (m 16,
// ef_construction 64, metric); "gin", the GIN index over the text's
// tsvector that hybrid search reads; "btree", the primary key on (resource,
// id) and the (resource, thread) and (resource, message) indexes. One
// INSERT of batchSize rows per transaction. It reports the insert rate,
// then the p50 of 20 vector searches (top 4) with membench's queries.
func runPgvector(ctx context.Context, dsn, metric string, indexes []string) error {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return err
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS vector"); err != nil {
		return err
	}
	ops, op := map[string]string{"cosine": "vector_cosine_ops", "euclidean": "vector_l2_ops", "dotproduct": "vector_ip_ops"}[metric],
		map[string]string{"cosine": "<=>", "euclidean": "<->", "dotproduct": "<#>"}[metric]
	if ops == "" {
		return fmt.Errorf("unknown metric %q", metric)
	}
	ddl := []string{`CREATE TABLE vectors (resource_id text NOT NULL, id text NOT NULL, thread_id text NOT NULL, message_id text NOT NULL,
		keywords tsvector NOT NULL, embedding vector(384) NOT NULL)`}
	for _, ix := range indexes {
		switch ix {
		case "hnsw":
			ddl = append(ddl, `CREATE INDEX ON vectors USING hnsw (embedding `+ops+`) WITH (m = 16, ef_construction = 64)`)
		case "gin":
			ddl = append(ddl, `CREATE INDEX ON vectors USING gin (keywords) WITH (fastupdate = off)`)
		case "btree":
			ddl = append(ddl, `ALTER TABLE vectors ADD PRIMARY KEY (resource_id, id)`,
				`CREATE INDEX ON vectors (resource_id, thread_id)`, `CREATE INDEX ON vectors (resource_id, message_id)`)
		case "":
		default:
			return fmt.Errorf("unknown index %q", ix)
		}
	}
	for _, q := range ddl {
		if _, err := pool.Exec(ctx, q); err != nil {
			return err
		}
	}
	emb := benchdata.HashEmbedder{Dim: 384}
	type rec struct {
		id, keywords string
		vec          string
	}
	recs := make([]rec, n)
	for i := range recs {
		t := benchdata.Text(i)
		recs[i] = rec{id: fmt.Sprint("m", i), keywords: tsLiteral(t), vec: pgv.NewVector(emb.EmbedOne(t)).String()}
	}
	start := time.Now()
	for lo := 0; lo < n; lo += batchSize {
		part := recs[lo:min(n, lo+batchSize)]
		ids, kws, vecs := make([]string, len(part)), make([]string, len(part)), make([]string, len(part))
		for i, r := range part {
			ids[i], kws[i], vecs[i] = r.id, r.keywords, r.vec
		}
		// One INSERT of the batch's arrays in its own transaction: the
		// vectors and tsvectors are parsed from text, as agentmem sends them.
		_, err := pool.Exec(ctx, `INSERT INTO vectors (resource_id, id, thread_id, message_id, keywords, embedding)
			SELECT 'user-1', i, 'thread-1', i, k::tsvector, e::vector FROM unnest($1::text[], $2::text[], $3::text[]) AS u(i, k, e)`, ids, kws, vecs)
		if err != nil {
			return err
		}
	}
	emit("index_msgs_per_s", int(float64(n)/time.Since(start).Seconds()), "indexes", strings.Join(indexes, ","))
	if _, err := pool.Exec(ctx, "ANALYZE vectors"); err != nil {
		return err
	}
	var got int
	r := 0
	err = timeit("search vector topK=4", 20, func() error {
		q := pgv.NewVector(emb.EmbedOne(benchdata.Query(r, n)))
		r++
		rows, err := pool.Query(ctx, `SELECT id FROM vectors ORDER BY embedding `+op+` $1 LIMIT 4`, q)
		if err != nil {
			return err
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
		got = len(ids)
		return err
	})
	emit("recallCount", got)
	return err
}

// tsLiteral is a tsvector literal of text's lowercased words with their
// positions, computed in the client as core/vector/pgvector does (which
// casts its analyzer's terms rather than parsing with a text search
// configuration).
func tsLiteral(text string) string {
	pos := map[string][]string{}
	var order []string
	for i, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if _, ok := pos[w]; !ok {
			order = append(order, w)
		}
		pos[w] = append(pos[w], fmt.Sprint(i+1))
	}
	var b strings.Builder
	for _, w := range order {
		fmt.Fprintf(&b, "'%s':%s ", w, strings.Join(pos[w], ","))
	}
	return b.String()
}
