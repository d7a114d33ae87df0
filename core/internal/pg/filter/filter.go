// Package filter translates a message metadata filter into a PostgreSQL
// condition on a jsonb document, for the stores that keep metadata in
// PostgreSQL (the message store and the pgvector store).
package filter

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

// timeCmp compares the value v with millis, a bigint, as message.Filter
// does: false unless v is a string message.ParseFilterTime accepts.
func timeCmp(v, cmp, millis string, arg func(any) string) string {
	return "COALESCE(" + TimeMillis("("+v+" #>> '{}')", arg) + cmp + millis + ", false)"
}

// TimeMillis is a scalar sub-select giving message.FilterMillis of the text
// x as message.ParseFilterTime reads it, NULL where that rejects x. It reads
// x once and checks its shape by mapping digits to 0 (PostgreSQL's regular
// expressions build their automaton at every call, which costs more); only
// a string of that shape is cast, into the date-time's digits as one
// number, the offset's hhmm and the fraction's nanoseconds; the field
// ranges come next, and CASE keeps them before make_date, so a day
// PostgreSQL would reject never reaches it. The arithmetic keeps the
// nanoseconds until the one rounding to milliseconds, where ::timestamptz
// would round to microseconds first, and reads offsets that ::timestamptz
// rejects (beyond ±15:59); the instant's range comes last.
func TimeMillis(x string, arg func(any) string) string {
	const s = "filter_time.s"
	zulu := "right(" + s + ", 1) = 'Z'"
	parts := "translate(left(" + s + ", 19), '-T:', '')::bigint AS n, " +
		"CASE WHEN " + zulu + " THEN 0 ELSE (substr(" + s + ", length(" + s + ") - 4, 2) || right(" + s + ", 2))::int END AS z, " +
		"left(right(" + s + ", 6), 1) = '-' AS west, " +
		"CASE WHEN substr(" + s + ", 20, 1) = '.' THEN rpad(substr(" + s + ", 21, length(" + s + ") - 20 - CASE WHEN " + zulu +
		" THEN 1 ELSE 6 END), 9, '0')::int ELSE 0 END AS ns"
	shape := "translate(left(" + s + ", 36), '0123456789', '0000000000') = ANY(" + arg(timeShapes) + "::text[])"
	field := func(div int64, mod int) string {
		f := "p.n / " + strconv.FormatInt(div, 10)
		if mod > 0 {
			f += " % " + strconv.Itoa(mod)
		}
		return "(" + f + ")"
	}
	y, mo, d := field(1e10, 0), field(1e8, 100), field(1e6, 100)
	h, mi, sec := field(1e4, 100), field(100, 100), field(1, 100)
	days := "CASE WHEN " + mo + " = 2 THEN 28 + (" + y + " % 4 = 0 AND (" + y + " % 100 <> 0 OR " + y + " % 400 = 0))::int " +
		"ELSE 30 + (" + mo + " + " + mo + " / 8) % 2 END"
	valid := y + " >= 1 AND " + mo + " BETWEEN 1 AND 12 AND " + d + " BETWEEN 1 AND " + days + " AND " + h + " < 24 AND " +
		mi + " < 60 AND " + sec + " < 60 AND p.z / 100 < 24 AND p.z % 100 < 60"
	offset := "(p.z / 100 * 60 + p.z % 100) * CASE WHEN p.west THEN -1 ELSE 1 END" // minutes
	seconds := "(make_date(" + y + "::int, " + mo + "::int, " + d + "::int) - DATE '1970-01-01')::bigint * 86400 + " +
		h + " * 3600 + " + mi + " * 60 + " + sec + " - (" + offset + ") * 60"
	millis := "(" + seconds + ") * 1000 + (p.ns + 500000) / 1000000" // halves up
	return "(SELECT q.ms FROM (SELECT CASE WHEN " + valid + " THEN " + millis + " END AS ms FROM (SELECT " + parts +
		" FROM (SELECT " + x + " AS s OFFSET 0) AS filter_time WHERE " + shape + " OFFSET 0) AS p OFFSET 0) AS q" +
		" WHERE q.ms BETWEEN " + strconv.FormatInt(message.MinFilterMillis, 10) + " AND " + strconv.FormatInt(message.MaxFilterMillis, 10) + ")"
}

// timeShapes are the strings message.FilterTimePattern can match with
// every digit replaced by 0: a date-time, zero to nine fraction digits,
// and Z or an offset. A longer string has no shape of these once cut to
// 36 characters.
var timeShapes = func() []string {
	var out []string
	for n := 0; n <= 9; n++ {
		fraction := ""
		if n > 0 {
			fraction = "." + strings.Repeat("0", n)
		}
		for _, zone := range []string{"Z", "+00:00", "-00:00"} {
			out = append(out, "0000-00-00T00:00:00"+fraction+zone)
		}
	}
	return out
}()
