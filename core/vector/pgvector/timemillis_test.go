package pgvector_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core/internal/pg/filter"
	"github.com/agentmem/agentmem/core/message"
)

// timeCandidates are strings around every rule of a valid filter time:
// every day number of every month in years at each leap-year rule, clock
// and offset fields at and beyond their ranges, fractions of each length
// near the rounding halves, and garbage; plus random valid-looking ones.
func timeCandidates() []string {
	var out []string
	for _, y := range []int{0, 1, 4, 100, 400, 1900, 2000, 2023, 2024, 2100, 9999} {
		for m := 0; m <= 13; m++ {
			for d := 0; d <= 32; d++ {
				out = append(out, fmt.Sprintf("%04d-%02d-%02dT00:00:00Z", y, m, d))
			}
		}
	}
	for _, v := range []int{0, 15, 16, 23, 24, 59, 60, 99} {
		out = append(out, fmt.Sprintf("2026-01-01T%02d:00:00Z", v), fmt.Sprintf("2026-01-01T00:%02d:00Z", v),
			fmt.Sprintf("2026-01-01T00:00:%02d", v)+"Z")
		for _, sign := range "+-" {
			out = append(out, fmt.Sprintf("2026-01-01T00:00:00%c%02d:00", sign, v), fmt.Sprintf("2026-01-01T00:00:00%c00:%02d", sign, v))
		}
	}
	for _, frac := range []string{"", ".", ".0", ".0004999", ".0005", ".0014995", ".9994999", ".9995", ".999999999", ".0000000001"} {
		for _, zone := range []string{"Z", "+01:00", "-23:59", "+23:59", "z", ""} {
			out = append(out, "2026-01-01T00:00:00"+frac+zone, "0001-01-01T00:00:00"+frac+zone, "9999-12-31T23:59:59"+frac+zone)
		}
	}
	out = append(out, "", "not a time", "2026-01-01", "2026-01-01 00:00:00Z", "2026-01-01t00:00:00Z",
		"2026-01-01T00:00:00Z"+strings.Repeat("0", 20), "２０２６-01-01T00:00:00Z", "2026-01-01T00:00:00+0100", "+026-01-01T00:00:00Z")
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		s := fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d", r.IntN(10000), 1+r.IntN(12), 1+r.IntN(31), r.IntN(24), r.IntN(60), r.IntN(60))
		if n := r.IntN(10); n > 0 {
			s += "." + strconv.FormatInt(r.Int64N(1_000_000_000), 10)[:1] + strings.Repeat("9", n-1)
		}
		switch r.IntN(3) {
		case 0:
			s += "Z"
		case 1:
			s += fmt.Sprintf("+%02d:%02d", r.IntN(24), r.IntN(60))
		default:
			s += fmt.Sprintf("-%02d:%02d", r.IntN(24), r.IntN(60))
		}
		out = append(out, s)
	}
	return out
}

// The SQL that PostgreSQL and pgvector filters run reads each string as
// message.ParseFilterTime and message.FilterMillis do: the same verdict and
// the same millisecond, never an error.
func TestFilterTimeMillisMatchesGo(t *testing.T) {
	pool := testPool(t)
	in := timeCandidates()
	var args []any
	arg := func(v any) string { args = append(args, v); return "$" + strconv.Itoa(len(args)) }
	list := arg(in)
	rows, err := pool.Query(bg(), "SELECT u.ord, "+filter.TimeMillis("u.x", arg)+" FROM unnest("+list+"::text[]) WITH ORDINALITY AS u(x, ord)", args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var ord int
		var got *int64
		if err := rows.Scan(&ord, &got); err != nil {
			t.Fatal(err)
		}
		n++
		s := in[ord-1]
		tm, ok := message.ParseFilterTime(s)
		switch {
		case ok != (got != nil):
			t.Errorf("%q: valid in Go %v, in SQL %v", s, ok, got != nil)
		case ok && *got != message.FilterMillis(tm):
			t.Errorf("%q: %d ms in SQL, %d in Go", s, *got, message.FilterMillis(tm))
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != len(in) {
		t.Fatalf("%d rows for %d strings", n, len(in))
	}
}
