package pgvector

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/agentmem/agentmem/core/message"
)

// metadataJSON is the stored form of a record's message metadata: nil (SQL
// NULL) when it has none, so that a filter finds every key missing, as it
// does for an empty map.
func metadataJSON(md map[string]any) *string {
	if len(md) == 0 {
		return nil
	}
	b, err := json.Marshal(md)
	if err != nil {
		// Metadata reached the store through a message, whose encoding
		// already succeeded; a value JSON cannot hold is not filterable.
		return nil
	}
	// jsonb cannot hold the NUL character, even escaped.
	if strings.Contains(string(b), `\u0000`) {
		return nil
	}
	js := string(b)
	return &js
}

// decodeMetadata reads a stored metadata column (nil for SQL NULL).
func decodeMetadata(b []byte) map[string]any {
	if len(b) == 0 {
		return nil
	}
	var md map[string]any
	if json.Unmarshal(b, &md) != nil || len(md) == 0 {
		return nil
	}
	return md
}

// params holds a statement's arguments and numbers the ones added.
type params struct {
	args []any
}

// arg adds v and returns its placeholder.
func (p *params) arg(v any) string {
	p.args = append(p.args, v)
	return "$" + strconv.Itoa(len(p.args))
}

// metadataCond is the condition of f on the metadata column of the table
// aliased alias ("" for none), "true" when f is empty.
func metadataCond(f message.Filter, alias string, p *params) string {
	if f.IsZero() {
		return "true"
	}
	col := "metadata"
	if alias != "" {
		col = alias + ".metadata"
	}
	return metadataSQL(f, col, p.arg)
}

// metadataSQL translates a metadata filter into a condition on the jsonb
// column col: its path is SQL NULL when missing (and for a record without
// metadata) and the jsonb null for an explicit null. Equality compares
// jsonb values, which is type-exact as message.Filter defines it; every
// leaf is COALESCEd to false so that NOT of a leaf is its negation. Casts
// run inside CASE, after the type check, so a value of another type never
// fails the statement.
func metadataSQL(f message.Filter, col string, arg func(any) string) string {
	switch f.Op {
	case message.OpAnd, message.OpOr:
		parts := make([]string, len(f.All))
		for i, s := range f.All {
			parts[i] = metadataSQL(s, col, arg)
		}
		sep := " AND "
		if f.Op == message.OpOr {
			sep = " OR "
		}
		return "(" + strings.Join(parts, sep) + ")"
	}
	v := "(" + col + " #> " + arg(f.Path()) + "::text[])"
	eq := func(x any) string {
		b, _ := json.Marshal(x) // strings, float64s, bools and nil only (Filter.Validate)
		return "COALESCE(" + v + " = " + arg(string(b)) + "::jsonb, false)"
	}
	switch f.Op {
	case message.OpExists:
		if f.Exists {
			return v + " IS NOT NULL"
		}
		return v + " IS NULL"
	case message.OpEq:
		return eq(f.Value)
	case message.OpNe:
		return "NOT " + eq(f.Value)
	case message.OpIn, message.OpNin:
		if len(f.Values) == 0 {
			if f.Op == message.OpIn {
				return "false"
			}
			return "true"
		}
		vals := make([]string, len(f.Values))
		for i, x := range f.Values {
			b, _ := json.Marshal(x)
			vals[i] = string(b)
		}
		in := "COALESCE(" + v + " = ANY(" + arg(vals) + "::jsonb[]), false)"
		if f.Op == message.OpNin {
			return "NOT " + in
		}
		return in
	}
	cmp := map[message.Op]string{message.OpGt: " > ", message.OpGte: " >= ", message.OpLt: " < ", message.OpLte: " <= "}[f.Op]
	switch x := f.Value.(type) {
	case float64:
		return "CASE WHEN jsonb_typeof(" + v + ") = 'number' THEN (" + v + " #>> '{}')::numeric" + cmp + arg(x) + "::float8::numeric ELSE false END"
	case time.Time:
		return "CASE WHEN jsonb_typeof(" + v + ") = 'string' AND (" + v + " #>> '{}') ~ " + arg(message.FilterTimePattern) +
			"::text THEN round(extract(epoch FROM (" + v + " #>> '{}')::timestamptz) * 1000)" + cmp +
			arg(message.FilterMillis(x)) + "::bigint ELSE false END"
	}
	return "false"
}
