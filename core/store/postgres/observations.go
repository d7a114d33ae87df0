package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"

	"github.com/jackc/pgx/v5"
)

// ListResourceMessages lists messages of every thread of a resource in one
// statement, through the per-thread index (the unobserved tail is small).
func (s *Store) ListResourceMessages(ctx context.Context, q store.ResourceMessageQuery) ([]message.Message, error) {
	const op = "ListResourceMessages"
	sql := s.q.listResourceAsc
	if q.Direction == store.Desc {
		sql = s.q.listResourceDesc
	}
	return s.queryMessages(ctx, op, sql, q.ResourceID, utc(q.Since), int64(q.Limit), nonNil(q.ExcludeIDs), timeOrNil(q.Until))
}

const listResourceSQL = `SELECT ` + messageCols + ` FROM {{schema}}.agentmem_messages
WHERE thread_id IN (SELECT id FROM {{schema}}.agentmem_threads WHERE resource_id = $1) AND resource_id = $1 AND created_at >= $2
	AND ($5::timestamptz IS NULL OR created_at < $5) AND id <> ALL($4::text[])
ORDER BY created_at DIR, seq DIR LIMIT $3`

const obsCols = "key, observations, observation_tokens, generation, last_observed_at, observed_message_ids, version, updated_at"

// activeCols are obsCols, the buffer and the unobserved ids, which only the
// active record has.
const activeCols = obsCols + ", buffer, unobserved_message_ids"

// scanObservation reads one row of obsCols (an archived generation).
func scanObservation(row pgx.Row) (store.ObservationRecord, error) {
	return scanRecord(row, nil)
}

// scanRecord reads one row of obsCols, or with a decoder one of activeCols
// (the active record, with its buffer).
func scanRecord(row pgx.Row, dec *store.RecordDecoder) (store.ObservationRecord, error) {
	buffer := dec != nil
	var (
		r       store.ObservationRecord
		tokens  int32
		gen     int32
		last    *time.Time
		updated time.Time
		buf     string
	)
	dest := []any{&r.Key, &r.Observations, &tokens, &gen, &last, &r.ObservedMessageIDs, &r.Version, &updated}
	if buffer {
		dest = append(dest, &buf, &r.UnobservedMessageIDs)
	}
	if err := row.Scan(dest...); err != nil {
		return store.ObservationRecord{}, err
	}
	if buffer {
		var err error
		if r.Buffer, err = dec.Buffer(r.Key, buf); err != nil {
			return store.ObservationRecord{}, err
		}
	}
	r.ObservationTokens, r.Generation, r.UpdatedAt = int(tokens), int(gen), updated.UTC()
	r.LastObservedAt = timeOrZero(last)
	if len(r.ObservedMessageIDs) == 0 {
		r.ObservedMessageIDs = nil
	}
	if len(r.UnobservedMessageIDs) == 0 {
		r.UnobservedMessageIDs = nil
	}
	return r, nil
}

// GetObservations returns the record under key, or the zero record.
func (s *Store) GetObservations(ctx context.Context, key string) (store.ObservationRecord, error) {
	const op = "GetObservations"
	if _, _, err := store.ParseObservationKey(key); err != nil {
		return store.ObservationRecord{}, opError(op, err)
	}
	r, err := scanRecord(s.pool.QueryRow(ctx, s.q.getObservations, key), &s.records)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.ObservationRecord{Key: key}, nil
	}
	if err != nil {
		return store.ObservationRecord{}, wrap(ctx, op, err)
	}
	return r, nil
}

const getObservationsSQL = `SELECT ` + activeCols + ` FROM {{schema}}.agentmem_observations WHERE key = $1`

// PutObservations writes rec by compare-and-set on the version, in one
// transaction: it locks the thread (thread keys) against a concurrent delete
// and the record row, checks the version and store.CheckObservationWrite,
// archives the active generation on a reflection and upserts the record.
// Concurrent first writers (no row yet) are told apart by the upsert's own
// version condition. Observation writes are rare (one per observed batch),
// so the few round trips of a transaction are cheap.
func (s *Store) PutObservations(ctx context.Context, rec store.ObservationRecord, expectVersion int64) (_ store.ObservationRecord, err error) {
	const op = "PutObservations"
	defer unconfirmed(ctx, op, &err)
	scope, id, err := store.ParseObservationKey(rec.Key)
	if err != nil {
		return store.ObservationRecord{}, opError(op, err)
	}
	rec = rec.Clone()
	if !rec.LastObservedAt.IsZero() {
		rec.LastObservedAt = utc(rec.LastObservedAt)
	}
	var out store.ObservationRecord
	err = retry(ctx, func() error {
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			cur, err := s.lockRecord(ctx, tx, op, scope, id, rec.Key)
			if err != nil {
				return err
			}
			if cur.Version != expectVersion {
				return memerr.Errorf(memerr.CodeConflict, op, "observations of %s are at version %d, not %d", rec.Key, cur.Version, expectVersion)
			}
			archive, err := store.CheckObservationWrite(cur, rec)
			if err != nil {
				return err
			}
			at := now()
			if archive {
				if err := s.archiveGeneration(ctx, tx, cur, at); err != nil {
					return err
				}
			}
			if scope == store.ScopeResource {
				// The resource gets a row, so ListResources (and so export)
				// finds a resource known only by its observations.
				if _, err := tx.Exec(ctx, s.q.ensureResource, id, at); err != nil {
					return err
				}
			}
			out, err = s.upsertObservations(ctx, tx, rec, expectVersion, at)
			return err
		})
	})
	if err != nil {
		return store.ObservationRecord{}, wrap(ctx, op, err)
	}
	return out, nil
}

// lockRecord locks the thread of a thread key (against a concurrent
// delete) and the record's row, and returns the record (version 0 when
// there is none).
func (s *Store) lockRecord(ctx context.Context, tx pgx.Tx, op string, scope store.Scope, id, key string) (store.ObservationRecord, error) {
	if scope == store.ScopeThread {
		var one int32
		err := tx.QueryRow(ctx, s.q.lockThread, id).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return store.ObservationRecord{}, withOp(memerr.CodeThreadNotFound, op, "thread not found")
		}
		if err != nil {
			return store.ObservationRecord{}, err
		}
	}
	cur, err := scanRecord(tx.QueryRow(ctx, s.q.lockObservations, key), &s.records)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.ObservationRecord{Key: key}, nil
	}
	return cur, err
}

// archiveGeneration keeps the active generation cur, replaced at at.
func (s *Store) archiveGeneration(ctx context.Context, tx pgx.Tx, cur store.ObservationRecord, at time.Time) error {
	_, err := tx.Exec(ctx, s.q.archiveObservations, cur.Key, int32(cur.Generation), cur.Observations,
		int32(cur.ObservationTokens), timeOrNil(cur.LastObservedAt), nonNil(cur.ObservedMessageIDs), cur.Version, cur.UpdatedAt, at)
	return err
}

// upsertObservations writes rec if the stored version is still
// expectVersion (a concurrent first writer makes it ErrConflict) and returns
// it with its new version.
func (s *Store) upsertObservations(ctx context.Context, tx pgx.Tx, rec store.ObservationRecord, expectVersion int64, at time.Time) (store.ObservationRecord, error) {
	var version *int64
	err := tx.QueryRow(ctx, s.q.putObservations, rec.Key, rec.Observations, int32(rec.ObservationTokens), int32(rec.Generation),
		timeOrNil(rec.LastObservedAt), nonNil(rec.ObservedMessageIDs), expectVersion, at, store.EncodeObservationBuffer(rec.Buffer),
		nonNil(rec.UnobservedMessageIDs)).Scan(&version)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.ObservationRecord{}, memerr.Errorf(memerr.CodeConflict, "PutObservations", "observations of %s were written concurrently", rec.Key)
	}
	if err != nil {
		return store.ObservationRecord{}, err
	}
	rec.Version, rec.UpdatedAt = *version, at
	return rec, nil
}

// nonNil is ids, or an empty list for nil: the column is NOT NULL.
func nonNil(ids []string) []string {
	if ids == nil {
		return []string{}
	}
	return ids
}

func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

const (
	lockThreadSQL       = `SELECT 1 FROM {{schema}}.agentmem_threads WHERE id = $1 FOR KEY SHARE`
	lockObservationsSQL = `SELECT ` + activeCols + ` FROM {{schema}}.agentmem_observations WHERE key = $1 FOR UPDATE`
	ensureResourceSQL   = `INSERT INTO {{schema}}.agentmem_resources (id, created_at, updated_at) VALUES ($1, $2, $2) ON CONFLICT (id) DO NOTHING`

	archiveObservationsSQL = `
INSERT INTO {{schema}}.agentmem_observation_generations
	(key, generation, observations, observation_tokens, last_observed_at, observed_message_ids, version, updated_at, archived_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
ON CONFLICT (key, generation) DO UPDATE SET
	observations = excluded.observations, observation_tokens = excluded.observation_tokens,
	last_observed_at = excluded.last_observed_at, observed_message_ids = excluded.observed_message_ids,
	version = excluded.version, updated_at = excluded.updated_at, archived_at = excluded.archived_at`

	putObservationsSQL = `
INSERT INTO {{schema}}.agentmem_observations AS o (` + activeCols + `)
VALUES ($1, $2, $3, $4, $5, $6, $7::bigint + 1, $8, $9::text::jsonb, $10)
ON CONFLICT (key) DO UPDATE SET
	observations = excluded.observations, observation_tokens = excluded.observation_tokens,
	generation = excluded.generation, last_observed_at = excluded.last_observed_at,
	observed_message_ids = excluded.observed_message_ids, version = excluded.version, updated_at = excluded.updated_at,
	buffer = excluded.buffer, unobserved_message_ids = excluded.unobserved_message_ids
WHERE o.version = $7::bigint
RETURNING o.version`
)

// ListObservationGenerations returns the archived generations, oldest first.
func (s *Store) ListObservationGenerations(ctx context.Context, key string) ([]store.ObservationRecord, error) {
	const op = "ListObservationGenerations"
	if _, _, err := store.ParseObservationKey(key); err != nil {
		return nil, opError(op, err)
	}
	rows, err := s.pool.Query(ctx, s.q.listGenerations, key)
	if err != nil {
		return nil, wrap(ctx, op, err)
	}
	defer rows.Close()
	var out []store.ObservationRecord
	for rows.Next() {
		r, err := scanObservation(rows)
		if err != nil {
			return nil, wrap(ctx, op, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap(ctx, op, err)
	}
	return out, nil
}

const listGenerationsSQL = `SELECT ` + obsCols + ` FROM {{schema}}.agentmem_observation_generations WHERE key = $1 ORDER BY generation`

// ClearObservations empties the record and drops its archived generations
// in one transaction, under the same locks as PutObservations, bumping the
// version.
func (s *Store) ClearObservations(ctx context.Context, key string) (_ store.ObservationRecord, err error) {
	const op = "ClearObservations"
	defer unconfirmed(ctx, op, &err)
	scope, id, err := store.ParseObservationKey(key)
	if err != nil {
		return store.ObservationRecord{}, opError(op, err)
	}
	var out store.ObservationRecord
	err = retry(ctx, func() error {
		out = store.ObservationRecord{Key: key}
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			cur, err := s.lockRecord(ctx, tx, op, scope, id, key)
			if err != nil || cur.Version == 0 {
				return err
			}
			if _, err := tx.Exec(ctx, s.q.clearGenerations, key); err != nil {
				return err
			}
			out.Version, out.UpdatedAt = cur.Version+1, now()
			_, err = tx.Exec(ctx, s.q.clearObservations, key, out.Version, out.UpdatedAt)
			return err
		})
	})
	if err != nil {
		return store.ObservationRecord{}, wrap(ctx, op, err)
	}
	return out, nil
}

const (
	clearGenerationsSQL  = `DELETE FROM {{schema}}.agentmem_observation_generations WHERE key = $1`
	clearObservationsSQL = `UPDATE {{schema}}.agentmem_observations SET observations = '', observation_tokens = 0, generation = 0,
	last_observed_at = NULL, observed_message_ids = '{}', buffer = '{}', unobserved_message_ids = '{}', version = $2, updated_at = $3 WHERE key = $1`
)
