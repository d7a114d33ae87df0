package modeltest

import (
	"strings"
	"time"

	"github.com/agentmem/agentmem/core/message"
)

// timeValue is a stored "at" value; hostile ones name a known defect.
type timeValue struct {
	v      string
	defect string
}

// atValues are the stored "at" values: valid times, and hostile ones (no
// such calendar day, year 0, an offset past 24 hours, finer than a
// millisecond) that only ever match by the documented rule: a value that is
// not a valid time never matches a time operand.
var atValues = []timeValue{
	{v: "2026-01-05T10:00:00Z"},
	{v: "2025-12-31T23:59:59.999Z"},
	{v: "2026-01-01T00:00:00Z"},
	{v: "not a time"},
	{v: "2026-02-30T00:00:00Z", defect: "hostileTimes"},
	{v: "0000-01-01T00:00:00Z", defect: "hostileTimes"},
	{v: "2026-01-01T00:00:00+99:00", defect: "hostileTimes"},
	{v: "2026-01-01T00:00:00.0004999Z", defect: "hostileTimes"},
}

// metaVariant returns the metadata of variant n: a visibility, a tag (some
// unicode, some empty), a time, a number, sometimes a deep nesting. Variants
// whose values trigger a listed defect get the value's valid twin instead.
func metaVariant(n int, skip map[string]bool) map[string]any {
	vis := []string{"public", "private"}[n%2]
	tag := []string{"a", "b", "ünï✓", "", "a b"}[n%5]
	at := atValues[n%len(atValues)]
	if skip[at.defect] {
		at = atValues[0]
	}
	md := map[string]any{"vis": vis, "tag": tag, "at": at.v, "n": float64(n % 4)}
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

// validTime is the documented rule for a stored time: RFC 3339 (year 0000
// included), a real calendar day, an offset within a day.
func validTime(s string) (time.Time, bool) {
	if !strings.Contains(s, "T") {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
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
