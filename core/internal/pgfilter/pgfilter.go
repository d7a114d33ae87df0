// Package pgfilter translates a message metadata filter into a PostgreSQL
// condition on a jsonb document, for the stores that keep metadata in
// PostgreSQL (the message store and the pgvector store).
package pgfilter

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/agentmem/agentmem/core/message"
)

// SQL translates a metadata filter into a condition on the jsonb
// expression doc, at prefix followed by the filter's key path: a path is
// SQL NULL when missing and the jsonb null for an explicit null. Equality
// compares jsonb values, which is type-exact as message.Filter defines it;
// every leaf is COALESCEd to false
// so that NOT of a leaf is its negation. Casts run only on values already
// checked (a number's after its type, a time's after its pattern), so no
// stored value fails the statement.
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
		return timeCmp(v, cmp, arg(message.FilterMillis(x))+"::bigint", arg)
	}
	return "false"
}

// timeCmp compares the value v with millis, a bigint: a string that
// message.FilterTimePattern matches is read as message.FilterMillis reads
// it, and anything else is false. The sub-select reads v once and casts
// only what the pattern passed (a date PostgreSQL would reject never
// reaches make_date); the arithmetic keeps the stored nanoseconds until
// the one rounding to milliseconds, where ::timestamptz would round to
// microseconds first.
func timeCmp(v, cmp, millis string, arg func(any) string) string {
	x := "filter_time.s"
	num := func(from, n int) string {
		return "substr(" + x + ", " + strconv.Itoa(from) + ", " + strconv.Itoa(n) + ")::int"
	}
	seconds := "(make_date(" + num(1, 4) + ", " + num(6, 2) + ", " + num(9, 2) + ") - DATE '1970-01-01')::bigint * 86400 + " +
		num(12, 2) + " * 3600 + " + num(15, 2) + " * 60 + " + num(18, 2)
	// ±hh:mm in minutes: the sign leads both parts.
	offset := "CASE WHEN right(" + x + ", 1) = 'Z' THEN 0 ELSE left(right(" + x + ", 6), 3)::int * 60 + (left(right(" + x +
		", 6), 1) || right(" + x + ", 2))::int END"
	// The fraction's digits as nanoseconds, rounded half up.
	fraction := "COALESCE((rpad(substring(" + x + " FROM '[.]([0-9]+)'), 9, '0')::int + 500000) / 1000000, 0)"
	return "COALESCE((SELECT ((" + seconds + ") - (" + offset + ") * 60) * 1000 + " + fraction + cmp + millis +
		" FROM (SELECT " + v + " #>> '{}' AS s OFFSET 0) AS filter_time WHERE " + x + " ~ " + arg(message.FilterTimePattern) + "::text), false)"
}
