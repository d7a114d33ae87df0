package message

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentmem/agentmem/core/memerr"
)

// Op is an operator of a metadata Filter, spelled as in Mastra's vector
// filter syntax (MongoDB's query operators).
type Op string

// Filter operators. OpAnd and OpOr combine the filters in All; the others
// test the metadata value at Key.
const (
	OpAnd    Op = "$and"
	OpOr     Op = "$or"
	OpEq     Op = "$eq"
	OpNe     Op = "$ne"
	OpIn     Op = "$in"
	OpNin    Op = "$nin"
	OpExists Op = "$exists"
	OpGt     Op = "$gt"
	OpGte    Op = "$gte"
	OpLt     Op = "$lt"
	OpLte    Op = "$lte"
)

// Limits of a Filter, so that one request cannot build an unbounded query.
const (
	MaxFilterConditions = 64   // field conditions in one filter
	MaxFilterValues     = 1000 // values of one $in or $nin
	MaxFilterDepth      = 8    // nesting of $and / $or
	MaxFilterString     = 4096 // bytes of one string value
)

// Filter selects messages by their metadata (Content.Metadata). The zero
// Filter matches every message. Build one with ParseFilter from Mastra's
// syntax, or directly; Validate checks one built by hand.
//
// Semantics, the same in every store:
//   - Equality is type-exact: "1" does not equal 1, and an explicit null
//     ($eq nil) is distinct from a missing key.
//   - $ne and $nin are the negations of $eq and $in, so they match a message
//     without the key.
//   - $gt, $gte, $lt and $lte compare a float64 operand with stored numbers
//     and a time.Time operand with the stored strings ParseFilterTime
//     accepts, as FilterMillis reads both; other stored values never match.
//   - Arrays and objects are stored and matched by $exists only.
//   - Key is a metadata key or a dotted path into nested objects ("a.b"),
//     each segment matching ^[A-Za-z_][A-Za-z0-9_]*$.
type Filter struct {
	Op     Op
	Key    string   // field operators
	Value  any      // $eq, $ne: string, float64, bool or nil; ranges: float64 or time.Time
	Values []any    // $in, $nin: strings, float64s, bools or nils
	Exists bool     // $exists
	All    []Filter // $and, $or
}

// IsZero reports whether f is the zero Filter, which matches everything.
func (f Filter) IsZero() bool { return f.Op == "" }

// And combines filters by $and, dropping zero ones; And() is the zero Filter.
func And(fs ...Filter) Filter {
	var all []Filter
	for _, f := range fs {
		if !f.IsZero() {
			all = append(all, f)
		}
	}
	switch len(all) {
	case 0:
		return Filter{}
	case 1:
		return all[0]
	}
	return Filter{Op: OpAnd, All: all}
}

// Path returns the segments of f.Key.
func (f Filter) Path() []string { return strings.Split(f.Key, ".") }

var filterKeyRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func filterErr(format string, args ...any) error {
	return memerr.Errorf(memerr.CodeInvalidArgument, "Filter", "metadata filter: "+format, args...)
}

// ParseFilter parses Mastra's filter syntax, as decoded from JSON or written
// as Go maps: {"projectId": "a"} (implicit $eq), {"n": {"$gte": 2, "$lt": 5}},
// {"$or": [{...}, {...}]}. Several keys in one object are AND-ed. Numbers of
// any Go numeric type become float64; time.Time values are kept for the
// range operators, as are strings ParseFilterTime accepts given to them (a
// Date in JSON). A nil or empty map is the zero Filter. Errors are
// memerr.CodeInvalidArgument.
func ParseFilter(raw map[string]any) (Filter, error) {
	f, err := parseObject(raw, 0)
	if err != nil {
		return Filter{}, err
	}
	return f, f.Validate()
}

// ParseFilterJSON parses a filter from its JSON text ("" is the zero Filter).
func ParseFilterJSON(s string) (Filter, error) {
	if strings.TrimSpace(s) == "" {
		return Filter{}, nil
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		return Filter{}, filterErr("not a JSON object: %v", err)
	}
	return ParseFilter(raw)
}

func parseObject(raw map[string]any, depth int) (Filter, error) {
	if depth > MaxFilterDepth {
		return Filter{}, filterErr("nested deeper than %d", MaxFilterDepth)
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys) // a stable order gives stable SQL text
	var all []Filter
	for _, k := range keys {
		v := raw[k]
		switch Op(k) {
		case OpAnd, OpOr:
			list, ok := v.([]any)
			if !ok {
				if ms, isMaps := v.([]map[string]any); isMaps {
					for _, m := range ms {
						list = append(list, m)
					}
					ok = true
				}
			}
			if !ok || len(list) == 0 {
				return Filter{}, filterErr("%s needs a non-empty array of filters", k)
			}
			g := Filter{Op: Op(k)}
			for _, e := range list {
				m, ok := e.(map[string]any)
				if !ok {
					return Filter{}, filterErr("%s needs filter objects, got %T", k, e)
				}
				sub, err := parseObject(m, depth+1)
				if err != nil {
					return Filter{}, err
				}
				if sub.IsZero() {
					return Filter{}, filterErr("%s holds an empty filter", k)
				}
				g.All = append(g.All, sub)
			}
			all = append(all, g)
			continue
		}
		if strings.HasPrefix(k, "$") {
			return Filter{}, filterErr("unsupported operator %q at the top level", k)
		}
		conds, err := parseField(k, v)
		if err != nil {
			return Filter{}, err
		}
		all = append(all, conds...)
	}
	return And(all...), nil
}

func parseField(key string, v any) ([]Filter, error) {
	ops, ok := v.(map[string]any)
	if !ok {
		val, err := scalar(key, v)
		if err != nil {
			return nil, err
		}
		return []Filter{{Op: OpEq, Key: key, Value: val}}, nil
	}
	if len(ops) == 0 {
		return nil, filterErr("%q: empty operator object", key)
	}
	names := make([]string, 0, len(ops))
	for n := range ops {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []Filter
	for _, n := range names {
		arg := ops[n]
		f := Filter{Op: Op(n), Key: key}
		switch f.Op {
		case OpEq, OpNe:
			val, err := scalar(key, arg)
			if err != nil {
				return nil, err
			}
			f.Value = val
		case OpIn, OpNin:
			list, ok := arg.([]any)
			if !ok {
				if ss, isStrings := arg.([]string); isStrings {
					for _, s := range ss {
						list = append(list, s)
					}
					ok = true
				}
			}
			if !ok {
				return nil, filterErr("%q: %s needs an array, got %T", key, n, arg)
			}
			for _, e := range list {
				val, err := scalar(key, e)
				if err != nil {
					return nil, err
				}
				f.Values = append(f.Values, val)
			}
		case OpExists:
			b, ok := arg.(bool)
			if !ok {
				return nil, filterErr("%q: $exists needs true or false, got %T", key, arg)
			}
			f.Exists = b
		case OpGt, OpGte, OpLt, OpLte:
			if t, ok := arg.(time.Time); ok {
				f.Value = t
				break
			}
			if s, ok := arg.(string); ok {
				// JSON carries a Date as its ISO string (JSON.stringify).
				if t, isTime := ParseFilterTime(s); isTime {
					f.Value = t
					break
				}
			}
			val, err := scalar(key, arg)
			if err != nil {
				return nil, err
			}
			f.Value = val
		default:
			return nil, filterErr("%q: unsupported operator %q", key, n)
		}
		out = append(out, f)
	}
	return out, nil
}

// scalar normalises a filter value: numbers become float64; strings, bools
// and nil stay; anything else is an error.
func scalar(key string, v any) (any, error) {
	switch x := v.(type) {
	case nil, string, bool, float64:
		return x, nil
	case float32:
		return float64(x), nil
	case int:
		return float64(x), nil
	case int8:
		return float64(x), nil
	case int16:
		return float64(x), nil
	case int32:
		return float64(x), nil
	case int64:
		return float64(x), nil
	case uint:
		return float64(x), nil
	case uint8:
		return float64(x), nil
	case uint16:
		return float64(x), nil
	case uint32:
		return float64(x), nil
	case uint64:
		return float64(x), nil
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return nil, filterErr("%q: invalid number %q", key, x)
		}
		return f, nil
	case time.Time:
		return nil, filterErr("%q: a time compares with $gt, $gte, $lt or $lte only", key)
	}
	return nil, filterErr("%q: value must be a string, number, boolean or null, got %T", key, v)
}

// Validate checks a Filter built by hand (ParseFilter's results are valid):
// known operators, keys, value types and the limits. Errors are
// memerr.CodeInvalidArgument.
func (f Filter) Validate() error {
	if f.IsZero() {
		return nil
	}
	n := 0
	return f.validate(0, &n)
}

func (f Filter) validate(depth int, n *int) error {
	switch f.Op {
	case OpAnd, OpOr:
		if depth >= MaxFilterDepth {
			return filterErr("nested deeper than %d", MaxFilterDepth)
		}
		if len(f.All) == 0 {
			return filterErr("%s needs at least one filter", f.Op)
		}
		for _, s := range f.All {
			if s.IsZero() {
				return filterErr("%s holds an empty filter", f.Op)
			}
			if err := s.validate(depth+1, n); err != nil {
				return err
			}
		}
		return nil
	case OpEq, OpNe, OpIn, OpNin, OpExists, OpGt, OpGte, OpLt, OpLte:
	default:
		return filterErr("unsupported operator %q", f.Op)
	}
	if *n++; *n > MaxFilterConditions {
		return filterErr("more than %d conditions", MaxFilterConditions)
	}
	if len(f.Key) > 256 {
		return filterErr("key longer than 256 bytes")
	}
	for _, seg := range strings.Split(f.Key, ".") {
		if !filterKeyRE.MatchString(seg) || seg == "__proto__" || seg == "constructor" || seg == "prototype" {
			return filterErr("invalid key %q", f.Key)
		}
	}
	switch f.Op {
	case OpEq, OpNe:
		return checkValue(f.Key, f.Value)
	case OpIn, OpNin:
		if len(f.Values) > MaxFilterValues {
			return filterErr("%q: more than %d values", f.Key, MaxFilterValues)
		}
		for _, v := range f.Values {
			if err := checkValue(f.Key, v); err != nil {
				return err
			}
		}
	case OpGt, OpGte, OpLt, OpLte:
		switch x := f.Value.(type) {
		case time.Time:
			if x.IsZero() {
				return filterErr("%q: %s needs a non-zero time", f.Key, f.Op)
			}
			if !filterInstant(x) {
				return filterErr("%q: %s needs a time in the years 0001 to 9999 (UTC)", f.Key, f.Op)
			}
		case float64:
			return checkValue(f.Key, x)
		default:
			return filterErr("%q: %s needs a number or a time, got %T", f.Key, f.Op, f.Value)
		}
	}
	return nil
}

func checkValue(key string, v any) error {
	switch x := v.(type) {
	case nil, bool:
		return nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return filterErr("%q: numbers must be finite", key)
		}
		return nil
	case string:
		if len(x) > MaxFilterString || !utf8.ValidString(x) || strings.IndexByte(x, 0) >= 0 {
			return filterErr("%q: strings must be valid UTF-8 without NUL, at most %d bytes", key, MaxFilterString)
		}
		return nil
	}
	return filterErr("%q: value must be a string, float64, bool or nil, got %T", key, v)
}

// Match reports whether metadata md satisfies f. Stores that cannot
// translate a filter into their query language evaluate it with Match.
func (f Filter) Match(md map[string]any) bool {
	switch f.Op {
	case "":
		return true
	case OpAnd:
		for _, s := range f.All {
			if !s.Match(md) {
				return false
			}
		}
		return true
	case OpOr:
		for _, s := range f.All {
			if s.Match(md) {
				return true
			}
		}
		return false
	}
	v, ok := lookup(md, f.Path())
	switch f.Op {
	case OpExists:
		return ok == f.Exists
	case OpEq:
		return ok && equal(v, f.Value)
	case OpNe:
		return !ok || !equal(v, f.Value)
	case OpIn, OpNin:
		in := false
		for _, want := range f.Values {
			if ok && equal(v, want) {
				in = true
				break
			}
		}
		return in == (f.Op == OpIn)
	}
	if !ok {
		return false
	}
	c, comparable := compare(v, f.Value)
	if !comparable {
		return false
	}
	switch f.Op {
	case OpGt:
		return c > 0
	case OpGte:
		return c >= 0
	case OpLt:
		return c < 0
	case OpLte:
		return c <= 0
	}
	return false
}

func lookup(md map[string]any, path []string) (any, bool) {
	var cur any = md
	for _, seg := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[seg]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// stored normalises a stored metadata value to the filter's types: numbers
// to float64, a time.Time (kept by in-memory stores) to its JSON string.
func stored(v any) any {
	if t, ok := v.(time.Time); ok {
		return t.Format(time.RFC3339Nano)
	}
	if f, err := scalar("", v); err == nil {
		return f
	}
	return v
}

func equal(storedValue, want any) bool {
	switch s := stored(storedValue).(type) {
	case nil:
		return want == nil
	case string:
		w, ok := want.(string)
		return ok && s == w
	case float64:
		w, ok := want.(float64)
		return ok && s == w
	case bool:
		w, ok := want.(bool)
		return ok && s == w
	}
	return false
}

// compare orders a stored value against a range operand; ok is false when
// the two are not of comparable kinds.
func compare(storedValue, operand any) (c int, ok bool) {
	s := stored(storedValue)
	switch o := operand.(type) {
	case float64:
		n, isNum := s.(float64)
		if !isNum {
			return 0, false
		}
		return cmpOrdered(n, o), true
	case time.Time:
		str, isStr := s.(string)
		if !isStr {
			return 0, false
		}
		t, parsed := ParseFilterTime(str)
		if !parsed {
			return 0, false
		}
		return cmpOrdered(FilterMillis(t), FilterMillis(o)), true
	}
	return 0, false
}

func cmpOrdered[T float64 | int64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// filterTimeRE is FilterTimePattern compiled; time.Parse reads every
// string it matches without error.
var filterTimeRE = regexp.MustCompile(FilterTimePattern)

// Parts of FilterTimePattern. A year is 0001 to 9999; a leap year is one
// divisible by 4 and not by 100 (its last two digits), or by 400 (its
// first two, followed by 00).
const (
	timeYear     = `(?:[0-9]{3}[1-9]|[0-9]{2}[1-9]0|[0-9][1-9]00|[1-9]000)`
	timeLeapYear = `(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)`
	timeMonthDay = `(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)`
	timeClock    = `T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:[.][0-9]{1,9})?`
	timeZone     = `(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])`
)

// FilterTimePattern is the form of a stored string the range operators
// read as a time: RFC 3339's date-time with an upper-case T and Z, one to
// nine fraction digits, a year from 0001 to 9999, a day that exists in its
// month, hours 00-23, minutes and seconds 00-59 (no leap second) and an
// offset within ±23:59. ParseFilterTime adds the range of the instant.
const FilterTimePattern = `^(?:` + timeYear + `-` + timeMonthDay + `|` + timeLeapYear + `-02-29)` + timeClock + timeZone + `$`

// The first and last instants a time operand or a stored time may have,
// in Unix milliseconds: years 0001 to 9999 in UTC, which every store can
// represent (an offset or rounding can carry a string's year 0001 or 9999
// beyond).
const (
	MinFilterMillis = -62135596800000 // 0001-01-01T00:00:00.000Z
	MaxFilterMillis = 253402300799999 // 9999-12-31T23:59:59.999Z
)

// ParseFilterTime parses a stored string as the time range operators read
// it; ok is false for a string FilterTimePattern does not match, or whose
// FilterMillis lies outside MinFilterMillis to MaxFilterMillis. Such a
// string never compares as a time.
func ParseFilterTime(s string) (t time.Time, ok bool) {
	if !filterTimeRE.MatchString(s) {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil && filterInstant(t)
}

func filterInstant(t time.Time) bool {
	ms := FilterMillis(t)
	return ms >= MinFilterMillis && ms <= MaxFilterMillis
}

// FilterMillis is the instant the time range operators compare: t in Unix
// milliseconds, rounded to the nearest with halves up (as JavaScript's Date
// keeps times), from t's full nanosecond precision.
func FilterMillis(t time.Time) int64 { return t.Round(time.Millisecond).UnixMilli() }

// MarshalJSON encodes f in Mastra's syntax (times as RFC 3339 strings,
// which ParseFilter reads back as times); the zero Filter is {}.
func (f Filter) MarshalJSON() ([]byte, error) { return json.Marshal(f.raw()) }

// UnmarshalJSON decodes Mastra's syntax with ParseFilter; null and {} are
// the zero Filter.
func (f *Filter) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = Filter{}
		return nil
	}
	parsed, err := ParseFilterJSON(string(b))
	if err != nil {
		return err
	}
	*f = parsed
	return nil
}

// String renders f in Mastra's syntax, for error messages and logs.
func (f Filter) String() string {
	b, err := json.Marshal(f.raw())
	if err != nil {
		return fmt.Sprintf("%#v", f)
	}
	return string(b)
}

func (f Filter) raw() any {
	switch f.Op {
	case "":
		return map[string]any{}
	case OpAnd, OpOr:
		list := make([]any, len(f.All))
		for i, s := range f.All {
			list[i] = s.raw()
		}
		return map[string]any{string(f.Op): list}
	case OpIn, OpNin:
		return map[string]any{f.Key: map[string]any{string(f.Op): f.Values}}
	case OpExists:
		return map[string]any{f.Key: map[string]any{string(f.Op): f.Exists}}
	}
	return map[string]any{f.Key: map[string]any{string(f.Op): f.Value}}
}
