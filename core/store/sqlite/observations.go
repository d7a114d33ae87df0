package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"math"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// ListResourceMessages lists messages of every thread of a resource, through
// the per-thread index (the unobserved tail is small).
func (s *Store) ListResourceMessages(ctx context.Context, q store.ResourceMessageQuery) ([]message.Message, error) {
	const op = "ListResourceMessages"
	dir := q.Direction.Keyword()
	since := int64(-1 << 62)
	if !q.Since.IsZero() {
		since = ceilMicro(q.Since)
	}
	until := int64(math.MaxInt64)
	if !q.Until.IsZero() {
		until = ceilMicro(q.Until)
	}
	exclude, args := "", []any{q.ResourceID, q.ResourceID, since, until}
	if len(q.ExcludeIDs) > 0 {
		exclude, args = ` AND `+excludeIDsSQL, append(args, encodeIDs(q.ExcludeIDs))
	}
	query := `SELECT ` + messageCols + ` FROM messages
		WHERE thread_id IN (SELECT id FROM threads WHERE resource_id = ?) AND resource_id = ?
			AND created_at >= ? AND created_at < ?` + exclude + `
		ORDER BY created_at ` + dir + `, seq ` + dir + ` LIMIT ?`
	var out []message.Message
	err := s.read(ctx, op, func(tx *sql.Tx) error {
		var err error
		out, err = queryMessages(ctx, tx, query, append(args, q.Limit)...)
		return err
	})
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = []message.Message{}
	}
	return out, nil
}

const obsCols = `key, observations, observation_tokens, generation, last_observed_at, observed_message_ids, version, updated_at`

// activeCols are obsCols, the buffer and the unobserved ids, which only the
// active record has.
const activeCols = obsCols + `, buffer, unobserved_message_ids`

// scanObservation reads one row of obsCols (an archived generation).
func scanObservation(sc scanner) (store.ObservationRecord, error) {
	return scanRecord(sc, nil)
}

// scanRecord reads one row of obsCols, or with a decoder one of activeCols
// (the active record, with its buffer).
func scanRecord(sc scanner, dec *store.RecordDecoder) (store.ObservationRecord, error) {
	buffer := dec != nil
	var (
		r       store.ObservationRecord
		last    sql.NullInt64
		ids     string
		updated int64
		version int64
		tokens  int64
		gen     int64
		buf     string
		moved   string
	)
	dest := []any{&r.Key, &r.Observations, &tokens, &gen, &last, &ids, &version, &updated}
	if buffer {
		dest = append(dest, &buf, &moved)
	}
	if err := sc.Scan(dest...); err != nil {
		return r, err
	}
	r.ObservationTokens, r.Generation, r.Version, r.UpdatedAt = int(tokens), int(gen), version, fromMicro(updated)
	if last.Valid {
		r.LastObservedAt = fromMicro(last.Int64)
	}
	if !buffer {
		return r, json.Unmarshal([]byte(ids), &r.ObservedMessageIDs)
	}
	var err error
	if r.Buffer, err = dec.Buffer(r.Key, buf); err != nil {
		return r, err
	}
	if moved != "[]" { // almost always empty: no decoding
		if err := json.Unmarshal([]byte(moved), &r.UnobservedMessageIDs); err != nil {
			return r, err
		}
	}
	r.ObservedMessageIDs, err = dec.IDs(r.Key, ids)
	return r, err
}

func getObservations(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, dec *store.RecordDecoder, key string) (store.ObservationRecord, error) {
	r, err := scanRecord(q.QueryRowContext(ctx, getObservationsSQL, key), dec)
	if errors.Is(err, sql.ErrNoRows) {
		return store.ObservationRecord{Key: key}, nil
	}
	return r, err
}

const getObservationsSQL = `SELECT ` + activeCols + ` FROM observations WHERE key = ?`

// GetObservations returns the record under key, or the zero record. Turns
// with observational memory read it twice: it runs prepared, and decodes
// only the JSON texts that changed since the last read of key.
func (s *Store) GetObservations(ctx context.Context, key string) (store.ObservationRecord, error) {
	const op = "GetObservations"
	if _, _, err := store.ParseObservationKey(key); err != nil {
		return store.ObservationRecord{}, withOp(op, err)
	}
	stmts, err := s.rstmts.get(ctx, getObservationsSQL)
	if err != nil {
		return store.ObservationRecord{}, withOp(op, err)
	}
	r, err := getObservations(ctx, preparedDB{db: s.r, stmts: stmts}, &s.records, key)
	if err != nil {
		return store.ObservationRecord{}, withOp(op, err)
	}
	return r, nil
}

func nullMicro(r store.ObservationRecord) any {
	if r.LastObservedAt.IsZero() {
		return nil
	}
	return floorMicro(r.LastObservedAt)
}

func encodeIDs(ids []string) string {
	if ids == nil {
		ids = []string{}
	}
	b, _ := json.Marshal(ids)
	return string(b)
}

// PutObservations writes rec by compare-and-set on the version inside one
// IMMEDIATE transaction, archiving the active generation on a reflection.
func (s *Store) PutObservations(ctx context.Context, rec store.ObservationRecord, expectVersion int64) (store.ObservationRecord, error) {
	const op = "PutObservations"
	scope, id, err := store.ParseObservationKey(rec.Key)
	if err != nil {
		return store.ObservationRecord{}, withOp(op, err)
	}
	rec = rec.Clone()
	if !rec.LastObservedAt.IsZero() {
		rec.LastObservedAt = fromMicro(floorMicro(rec.LastObservedAt))
	}
	err = s.write(ctx, op, func(tx *sql.Tx) error {
		if scope == store.ScopeThread {
			if _, err := getThread(ctx, tx, op, id); err != nil {
				return err
			}
		}
		cur, err := getObservations(ctx, tx, &s.records, rec.Key)
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
		now := s.stamp()
		if archive {
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO observation_generations
				(key, generation, observations, observation_tokens, last_observed_at, observed_message_ids, version, updated_at, archived_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				cur.Key, cur.Generation, cur.Observations, cur.ObservationTokens, nullMicro(cur), encodeIDs(cur.ObservedMessageIDs),
				cur.Version, floorMicro(cur.UpdatedAt), now); err != nil {
				return err
			}
		}
		if scope == store.ScopeResource {
			// The resource gets a row, so ListResources (and so export) finds
			// a resource known only by its observations.
			if _, err := tx.ExecContext(ctx, `INSERT INTO resources (id, created_at, updated_at) VALUES (?, ?, ?)
				ON CONFLICT (id) DO NOTHING`, id, now, now); err != nil {
				return err
			}
		}
		rec.Version, rec.UpdatedAt = expectVersion+1, fromMicro(now)
		_, err = tx.ExecContext(ctx, `INSERT INTO observations (`+activeCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (key) DO UPDATE SET observations = excluded.observations, observation_tokens = excluded.observation_tokens,
				generation = excluded.generation, last_observed_at = excluded.last_observed_at,
				observed_message_ids = excluded.observed_message_ids, version = excluded.version, updated_at = excluded.updated_at,
				buffer = excluded.buffer, unobserved_message_ids = excluded.unobserved_message_ids`,
			rec.Key, rec.Observations, rec.ObservationTokens, rec.Generation, nullMicro(rec), encodeIDs(rec.ObservedMessageIDs), rec.Version, now,
			store.EncodeObservationBuffer(rec.Buffer), encodeIDs(rec.UnobservedMessageIDs))
		return err
	})
	if err != nil {
		return store.ObservationRecord{}, err
	}
	return rec, nil
}

// ListObservationGenerations returns the archived generations, oldest first.
func (s *Store) ListObservationGenerations(ctx context.Context, key string) ([]store.ObservationRecord, error) {
	const op = "ListObservationGenerations"
	if _, _, err := store.ParseObservationKey(key); err != nil {
		return nil, withOp(op, err)
	}
	var out []store.ObservationRecord
	err := s.read(ctx, op, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT `+obsCols+` FROM observation_generations WHERE key = ? ORDER BY generation`, key)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			r, err := scanObservation(rows)
			if err != nil {
				return err
			}
			out = append(out, r)
		}
		return rows.Err()
	})
	return out, err
}

// ClearObservations empties the record and drops its archived generations
// in one IMMEDIATE transaction, bumping the version.
func (s *Store) ClearObservations(ctx context.Context, key string) (store.ObservationRecord, error) {
	const op = "ClearObservations"
	scope, id, err := store.ParseObservationKey(key)
	if err != nil {
		return store.ObservationRecord{}, withOp(op, err)
	}
	out := store.ObservationRecord{Key: key}
	err = s.write(ctx, op, func(tx *sql.Tx) error {
		if scope == store.ScopeThread {
			if _, err := getThread(ctx, tx, op, id); err != nil {
				return err
			}
		}
		cur, err := getObservations(ctx, tx, &s.records, key)
		if err != nil || cur.Version == 0 {
			return err
		}
		now := s.stamp()
		if _, err := tx.ExecContext(ctx, `DELETE FROM observation_generations WHERE key = ?`, key); err != nil {
			return err
		}
		out.Version, out.UpdatedAt = cur.Version+1, fromMicro(now)
		_, err = tx.ExecContext(ctx, `UPDATE observations SET observations = '', observation_tokens = 0, generation = 0,
			last_observed_at = NULL, observed_message_ids = '[]', buffer = '{}', unobserved_message_ids = '[]', version = ?, updated_at = ? WHERE key = ?`, out.Version, now, key)
		return err
	})
	if err != nil {
		return store.ObservationRecord{}, err
	}
	return out, nil
}
