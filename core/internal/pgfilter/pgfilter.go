// Package pgfilter translates a message metadata filter into a PostgreSQL
// condition on a jsonb document, for the stores that keep metadata in
// PostgreSQL (the message store and the pgvector store).
package pgfilter

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/agentmem/agentmem/core/message"
)

// SQL translates a metadata filter into a condition on the jsonb
// expression doc, at prefix followed by the filter's key path: a path is
// SQL NULL when missing and the jsonb null for an explicit null. Equality
// compares jsonb values, which is type-exact as message.Filter defines it;
// every leaf is COALESCEd to false
// so that NOT of a leaf is its negation. Casts run inside CASE, after the
// type check, so a value of another type never fails the statement.
func SQL(f message.Filter, doc string, prefix []string, arg func(any) string) string {
	switch f.Op {
	case message.OpAnd, message.OpOr:
		parts := make([]string, len(f.All))
		for i, s := range f.All {
			parts[i] = SQL(s, doc, prefix, arg)
		}
		sep := " AND "
		if f.Op == message.OpOr {
			sep = " OR "
		}
		return "(" + strings.Join(parts, sep) + ")"
	}
	v := "(" + doc + " #> " + arg(append(append([]string(nil), prefix...), f.Path()...)) + "::text[])"
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
