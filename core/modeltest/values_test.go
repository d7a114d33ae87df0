package modeltest

import (
	"time"

	"github.com/agentmem/agentmem/core/message"
)

// atValues are the stored "at" values: valid times, and hostile ones (no
// such calendar day, year 0, an offset past a day or of exactly 24 hours,
// an instant before year 1 in UTC, finer than a millisecond, lower-case)
// that only ever match by the documented rule: a value that is not a valid
// time never matches a time operand, and a valid one compares in rounded
// milliseconds.
var atValues = []string{
	"2026-01-05T10:00:00Z",
	"2025-12-31T23:59:59.999Z",
	"2026-01-01T00:00:00Z",
	"not a time",
	"2026-02-30T00:00:00Z",
	"0000-01-01T00:00:00Z",
	"2026-01-01T00:00:00+99:00",
	"2026-01-01T00:00:00.0004999Z",
	"2026-01-01T00:00:00.0005Z",
	"2026-01-02T00:00:00+24:00",
	"0001-01-01T00:30:00+01:00",
	"2026-01-01t00:00:00z",
}

// metaVariant returns the metadata of variant n: a visibility, a tag (some
// unicode, some empty), a time, a number, sometimes a deep nesting.
func metaVariant(n int) map[string]any {
	vis := []string{"public", "private"}[n%2]
	tag := []string{"a", "b", "ünï✓", "", "a b"}[n%5]
	md := map[string]any{"vis": vis, "tag": tag, "at": atValues[n%len(atValues)], "n": float64(n % 4)}
	switch n % 7 {
	case 3:
		md["deep"] = deep(20)
	case 5:
		delete(md, "vis")
	case 6:
		md["tag"] = nil // an explicit null
	}
	return md
}

func deep(levels int) map[string]any {
	v := map[string]any{"leaf": "x"}
	for range levels {
		v = map[string]any{"d": v}
	}
	return v
}

// filterVariants are the filters of recall operations, in Mastra's syntax.
var filterVariants = []map[string]any{
	{"vis": "public"},
	{"tag": map[string]any{"$ne": "a"}},
	{"at": map[string]any{"$gte": "2026-01-01T00:00:00Z"}},
	{"at": map[string]any{"$gte": "2026-01-01T00:00:00.001Z"}},
	{"at": map[string]any{"$lt": "2026-01-02T00:00:00Z"}},
	{"$or": []any{map[string]any{"vis": "private"}, map[string]any{"n": map[string]any{"$gt": 2}}}},
	{"deep": map[string]any{"$exists": true}},
	{"tag": nil},
}

// matches evaluates a filter variant on stored metadata by the documented
// semantics, independently of the stores' code.
func matches(f map[string]any, md map[string]any) bool {
	for k, cond := range f {
		if k == "$or" {
			anyOf := false
			for _, sub := range cond.([]any) {
				anyOf = anyOf || matches(sub.(map[string]any), md)
			}
			if !anyOf {
				return false
			}
			continue
		}
		v, has := md[k]
		ops, isOps := cond.(map[string]any)
		if !isOps {
			if !has || v != cond {
				return false
			}
			continue
		}
		for op, operand := range ops {
			if !matchOp(op, operand, v, has) {
				return false
			}
		}
	}
	return true
}

func matchOp(op string, operand, v any, has bool) bool {
	switch op {
	case "$ne":
		return !has || v != operand
	case "$exists":
		return has == operand.(bool)
	}
	if s, ok := operand.(string); ok { // a time operand
		stored, ok := v.(string)
		if !ok {
			return false
		}
		st, ok := validTime(stored)
		if !ok {
			return false
		}
		ot, _ := validTime(s)
		return compare(op, float64(message.FilterMillis(st)), float64(message.FilterMillis(ot)))
	}
	n, ok := v.(float64)
	return ok && compare(op, n, float64(operand.(int)))
}

// validTime is the documented rule for a stored time: RFC 3339 with an
// upper-case T and Z, a year from 0001 to 9999, a real calendar day, an
// offset within ±23:59, and an instant (in rounded milliseconds) in the
// years 0001 to 9999 UTC.
func validTime(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if _, off := t.Zone(); err != nil || t.Year() < 1 || off >= 24*3600 || off <= -24*3600 {
		return time.Time{}, false
	}
	utc := time.UnixMilli(message.FilterMillis(t)).UTC()
	return t, utc.Year() >= 1 && utc.Year() <= 9999
}

func compare(op string, a, b float64) bool {
	switch op {
	case "$gt":
		return a > b
	case "$gte":
		return a >= b
	case "$lt":
		return a < b
	case "$lte":
		return a <= b
	}
	panic("operator " + op)
}
