package sqlite

import (
	"database/sql/driver"
	"strconv"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"

	"github.com/agentmem/agentmem/core/message"
)

// metadataSQL translates a metadata filter into a condition on the stored
// content JSON ($.metadata of the object; a text-only row is a JSON string,
// whose paths are all missing). Every leaf is wrapped in IFNULL(…, 0), so a
// missing key is false, never NULL, and NOT of a leaf is its negation.
func metadataSQL(f message.Filter, args *[]any) string {
	switch f.Op {
	case message.OpAnd, message.OpOr:
		parts := make([]string, len(f.All))
		for i, s := range f.All {
			parts[i] = metadataSQL(s, args)
		}
		return "(" + strings.Join(parts, map[message.Op]string{message.OpAnd: " AND ", message.OpOr: " OR "}[f.Op]) + ")"
	}
	path := "$.metadata." + f.Key // segments are identifiers (Filter.Validate)
	typ := func() string { *args = append(*args, path); return "json_type(content, ?)" }
	val := func() string { *args = append(*args, path); return "json_extract(content, ?)" }
	bind := func(v any) string { *args = append(*args, v); return "?" }
	eq := func(v any) string {
		switch x := v.(type) {
		case nil:
			return typ() + " = 'null'"
		case bool:
			return typ() + " = '" + strconv.FormatBool(x) + "'"
		case string:
			return "(" + typ() + " = 'text' AND " + val() + " = " + bind(x) + ")"
		case float64:
			return "(" + typ() + " IN ('integer', 'real') AND " + val() + " = " + bind(x) + ")"
		}
		return "0"
	}
	leaf := func(s string) string { return "IFNULL(" + s + ", 0)" }
	switch f.Op {
	case message.OpExists:
		if f.Exists {
			return "(" + typ() + " IS NOT NULL)"
		}
		return "(" + typ() + " IS NULL)"
	case message.OpEq:
		return leaf(eq(f.Value))
	case message.OpNe:
		return "NOT " + leaf(eq(f.Value))
	case message.OpIn, message.OpNin:
		if len(f.Values) == 0 {
			return map[bool]string{true: "0", false: "1"}[f.Op == message.OpIn]
		}
		parts := make([]string, len(f.Values))
		for i, v := range f.Values {
			parts[i] = leaf(eq(v))
		}
		in := "(" + strings.Join(parts, " OR ") + ")"
		if f.Op == message.OpNin {
			return "NOT " + in
		}
		return in
	}
	cmp := map[message.Op]string{message.OpGt: " > ", message.OpGte: " >= ", message.OpLt: " < ", message.OpLte: " <= "}[f.Op]
	switch x := f.Value.(type) {
	case float64:
		return leaf("(" + typ() + " IN ('integer', 'real') AND " + val() + cmp + bind(x) + ")")
	case time.Time:
		return leaf(filterMillisFunc + "(" + val() + ")" + cmp + bind(message.FilterMillis(x)))
	}
	return "0"
}

// filterMillisFunc is the SQL function that reads a stored value as the
// time range operators do: message.FilterMillis of a string
// message.ParseFilterTime accepts, else NULL. It runs the Go rule itself,
// since SQLite's date functions accept days that do not exist (February
// 30th is March 2nd) and keep only milliseconds, truncated.
const filterMillisFunc = "agentmem_filter_millis"

// registerFilterMillis registers filterMillisFunc with the driver, once per
// process, before Open opens its first connection.
var registerFilterMillis = sync.OnceValue(func() error {
	return sqlite.RegisterDeterministicScalarFunction(filterMillisFunc, 1,
		func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			s, ok := args[0].(string)
			if !ok {
				return nil, nil
			}
			t, ok := message.ParseFilterTime(s)
			if !ok {
				return nil, nil
			}
			return message.FilterMillis(t), nil
		})
})
