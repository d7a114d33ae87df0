// Package filtertime holds the stored values and filters with which the
// store conformance suites (storetest, vectortest) check how metadata
// filters compare times: strings message.ParseFilterTime rejects never
// match a time operand and never fail a query, and every store rounds to
// milliseconds as message.FilterMillis does, from the full nanoseconds.
package filtertime

import "time"

// Value is the metadata value stored at Key in the message ID.
type Value struct {
	ID    string
	Value any
}

// Key is the metadata key the values are stored at.
const Key = "at"

// Values are valid times (V…, including rounding boundaries and offsets
// that PostgreSQL's own parser rejects) and values that are not (H…).
var Values = []Value{
	{"V1", "2024-02-29T12:00:00Z"},              // a leap day
	{"V2", "2026-01-01T00:00:00.0004999Z"},      // rounds down to .000
	{"V3", "2026-01-01T01:00:00.0005+01:00"},    // a half rounds up, to .001
	{"V4", "2026-01-01T00:00:00.001000000Z"},    // exactly .001
	{"V5", "2026-01-01T00:00:00.0014995Z"},      // .001, where microseconds first would give .002
	{"V6", "2026-01-01T00:00:00.9995Z"},         // rounds up into the next second
	{"V7", "0001-01-01T00:00:00Z"},              // the first valid instant
	{"V8", "9999-12-31T00:00:59.9994999-23:59"}, // the last one, by an offset and rounding
	{"V9", "2026-06-01T00:00:00+16:00"},         // beyond PostgreSQL's ±15:59
	{"H1", "2026-02-30T00:00:00Z"},              // no such day
	{"H2", "0000-06-01T00:00:00Z"},              // no year 0
	{"H3", "2026-06-01T00:00:00+99:00"},
	{"H4", "2026-06-01T00:00:00+24:00"},
	{"H5", "2026-06-01T00:00:00+00:60"},
	{"H6", "2026-06-01T24:00:00Z"},
	{"H7", "2026-06-01T23:59:60Z"},            // a leap second
	{"H8", "2100-02-29T00:00:00Z"},            // 2100 is not a leap year
	{"H9", "2026-06-01T00:00:00.0000000001Z"}, // ten fraction digits
	{"H10", "2026-06-01 00:00:00Z"},
	{"H11", "2026-06-01"},
	{"H12", "2026-06-01t00:00:00z"},
	{"H13", "not a time"},
	{"H14", 20260601},
	{"H15", "9999-12-31T23:59:59.9995Z"}, // rounds into the year 10000
	{"H16", "0001-01-01T00:00:00+00:01"}, // the year 0 in UTC
}

// Case is a filter and the ids of Values it matches, sorted.
type Case struct {
	Filter map[string]any
	Want   []string
}

func utc(year int, month time.Month, day, hour, minute, second, nsec int) time.Time {
	return time.Date(year, month, day, hour, minute, second, nsec, time.UTC)
}

func at(ops map[string]any) map[string]any { return map[string]any{Key: ops} }

// Cases compare every time operator with Values, near the rounding
// boundaries and across the whole valid range, and look the invalid
// values up by equality (which never fails either).
var Cases = []Case{
	{at(map[string]any{"$gte": utc(2026, 1, 1, 0, 0, 0, 1e6)}), []string{"V3", "V4", "V5", "V6", "V8", "V9"}},
	{at(map[string]any{"$gt": utc(2026, 1, 1, 0, 0, 0, 1e6)}), []string{"V6", "V8", "V9"}},
	{at(map[string]any{"$lte": utc(2026, 1, 1, 0, 0, 0, 1e6)}), []string{"V1", "V2", "V3", "V4", "V5", "V7"}},
	{at(map[string]any{"$lt": utc(2026, 1, 1, 0, 0, 0, 1e6)}), []string{"V1", "V2", "V7"}},
	{at(map[string]any{"$gte": utc(2026, 1, 1, 0, 0, 0, 1e6), "$lte": utc(2026, 1, 1, 0, 0, 0, 1e6)}), []string{"V3", "V4", "V5"}},
	{at(map[string]any{"$gte": utc(2026, 1, 1, 0, 0, 0, 2e6)}), []string{"V6", "V8", "V9"}},
	{at(map[string]any{"$gte": utc(2026, 1, 1, 0, 0, 1, 0)}), []string{"V6", "V8", "V9"}},
	{at(map[string]any{"$lt": utc(2026, 1, 1, 0, 0, 1, 0)}), []string{"V1", "V2", "V3", "V4", "V5", "V7"}},
	{at(map[string]any{"$gte": utc(2026, 5, 31, 8, 0, 0, 0)}), []string{"V8", "V9"}},
	{at(map[string]any{"$lt": utc(2026, 5, 31, 8, 0, 0, 0)}), []string{"V1", "V2", "V3", "V4", "V5", "V6", "V7"}},
	// Operands round too: 1 ns and 499,999 ns are the first millisecond.
	{at(map[string]any{"$gt": utc(1, 1, 1, 0, 0, 0, 1)}), []string{"V1", "V2", "V3", "V4", "V5", "V6", "V8", "V9"}},
	{at(map[string]any{"$lte": utc(1, 1, 1, 0, 0, 0, 499_999)}), []string{"V7"}},
	{at(map[string]any{"$lte": utc(9999, 12, 31, 23, 59, 59, 999e6)}), []string{"V1", "V2", "V3", "V4", "V5", "V6", "V7", "V8", "V9"}},
	{at(map[string]any{"$lt": utc(9999, 12, 31, 23, 59, 59, 999e6)}), []string{"V1", "V2", "V3", "V4", "V5", "V6", "V7", "V9"}},
	{at(map[string]any{"$gt": utc(2026, 6, 1, 0, 0, 0, 0)}), []string{"V8"}},
	{map[string]any{"$or": []any{at(map[string]any{"$lt": utc(2024, 3, 1, 0, 0, 0, 0)}), map[string]any{Key: "not a time"}}},
		[]string{"H13", "V1", "V7"}},
	{map[string]any{Key: "2026-02-30T00:00:00Z"}, []string{"H1"}},
	{at(map[string]any{"$in": []any{"0000-06-01T00:00:00Z", 20260601}}), []string{"H14", "H2"}},
}
