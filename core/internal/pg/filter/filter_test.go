package filter

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/internal/testenv"

	"github.com/jackc/pgx/v5"
)

// args collects a statement's arguments as SQL's arg callback.
type args []any

func (a *args) arg(v any) string {
	*a = append(*a, v)
	return fmt.Sprintf("$%d", len(*a))
}

func mustFilter(t *testing.T, js string) message.Filter {
	t.Helper()
	f, err := message.ParseFilterJSON(js)
	if err != nil {
		t.Fatalf("ParseFilterJSON(%s): %v", js, err)
	}
	return f
}

// TestSQLShape checks the translation without a server: the key path and
// values travel as arguments, never in the SQL text, and empty lists have
// their constant answers.
func TestSQLShape(t *testing.T) {
	var a args
	got := SQL(mustFilter(t, `{"topic.name": "o'brien"}`), "doc", []string{"meta"}, a.arg)
	if want := `COALESCE((doc #> $1::text[]) = $2::jsonb, false)`; got != want {
		t.Fatalf("$eq: %s, want %s", got, want)
	}
	if path, ok := a[0].([]string); !ok || strings.Join(path, "/") != "meta/topic/name" {
		t.Fatalf("path argument %#v, want [meta topic name]", a[0])
	}
	if a[1] != `"o'brien"` {
		t.Fatalf("value argument %#v, want the JSON string", a[1])
	}
	if strings.Contains(got, "brien") {
		t.Fatalf("a value reached the SQL text: %s", got)
	}
	for js, want := range map[string]string{
		`{"k": {"$in": []}}`:  "false",
		`{"k": {"$nin": []}}`: "true",
	} {
		var a args
		if got := SQL(mustFilter(t, js), "doc", nil, a.arg); got != want {
			t.Errorf("%s: %s, want %s", js, got, want)
		}
	}
	a = nil
	got = SQL(mustFilter(t, `{"$or": [{"a": 1}, {"b": {"$exists": false}}]}`), "doc", nil, a.arg)
	if !strings.HasPrefix(got, "(COALESCE(") || !strings.Contains(got, " OR ") || !strings.HasSuffix(got, " IS NULL)") {
		t.Fatalf("$or: %s", got)
	}
}

// TestSQLMatchesFilter runs every translated condition on the server
// against documents and compares it with message.Filter.Match, the
// definition every store follows.
func TestSQLMatchesFilter(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, testenv.Postgres(t))
	if err != nil {
		testenv.Unavailable(t, "PostgreSQL unreachable: %v", err)
	}
	defer conn.Close(ctx)
	docs := []string{
		`{}`,
		`{"a": 1}`,
		`{"a": 2.5, "b": null}`,
		`{"a": "1", "b": true}`,
		`{"a": [1, 2], "b": false}`,
		`{"n": {"x": "deep"}, "a": -3}`,
		`{"t": "2025-01-02T03:04:05Z"}`,
		`{"t": "2025-01-02T03:04:05.123456789+02:00"}`,
		`{"t": "2025-02-30T00:00:00Z"}`,
		`{"t": "not a time"}`,
		`{"t": 17}`,
	}
	filters := []string{
		`{"a": 1}`,
		`{"a": "1"}`,
		`{"a": {"$ne": 1}}`,
		`{"a": {"$gt": 1}}`,
		`{"a": {"$lte": 1}}`,
		`{"a": {"$in": [1, "1", 2.5]}}`,
		`{"a": {"$nin": [1, "1"]}}`,
		`{"b": null}`,
		`{"b": {"$exists": true}}`,
		`{"b": {"$exists": false}}`,
		`{"b": true}`,
		`{"n.x": "deep"}`,
		`{"n.x": {"$exists": true}}`,
		`{"t": {"$gt": "2025-01-02T00:00:00Z"}}`,
		`{"t": {"$lt": "2025-01-02T03:04:05.5Z"}}`,
		`{"t": {"$gte": "2025-01-02T01:04:05.123Z"}}`,
		`{"$or": [{"a": 1}, {"b": true}]}`,
		`{"$and": [{"a": {"$exists": true}}, {"a": {"$ne": 2.5}}]}`,
	}
	for _, fjs := range filters {
		f := mustFilter(t, fjs)
		for _, djs := range docs {
			var md map[string]any
			if err := json.Unmarshal([]byte(djs), &md); err != nil {
				t.Fatal(err)
			}
			a := args{djs}
			cond := SQL(f, "d.doc", nil, a.arg)
			var got bool
			q := "SELECT " + cond + " FROM (SELECT $1::jsonb AS doc) AS d"
			if err := conn.QueryRow(ctx, q, a...).Scan(&got); err != nil {
				t.Fatalf("filter %s on %s: %v\n%s", fjs, djs, err, q)
			}
			if want := f.Match(md); got != want {
				t.Errorf("filter %s on %s: SQL says %v, Match says %v", fjs, djs, got, want)
			}
		}
	}
}

// TestTimeMillis compares the server's reading of date-time strings with
// message.ParseFilterTime and FilterMillis.
func TestTimeMillis(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, testenv.Postgres(t))
	if err != nil {
		testenv.Unavailable(t, "PostgreSQL unreachable: %v", err)
	}
	defer conn.Close(ctx)
	for _, s := range []string{
		"2025-01-02T03:04:05Z",
		"2025-01-02T03:04:05.0005Z",
		"2025-01-02T03:04:05.9996-15:59",
		"2024-02-29T23:59:59+01:00",
		"2023-02-29T00:00:00Z",
		"2025-13-01T00:00:00Z",
		"2025-01-02 03:04:05Z",
		"0001-01-01T00:00:00Z",
		"",
		"x",
	} {
		var a args
		a.arg(s)
		var got *int64
		if err := conn.QueryRow(ctx, "SELECT "+TimeMillis("$1::text", a.arg), a...).Scan(&got); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		tm, ok := message.ParseFilterTime(s)
		switch {
		case !ok && got != nil:
			t.Errorf("%q: server read %d, ParseFilterTime rejects it", s, *got)
		case ok && got == nil:
			t.Errorf("%q: server rejects it, ParseFilterTime reads %v", s, tm)
		case ok && *got != message.FilterMillis(tm):
			t.Errorf("%q: server read %d, want %d", s, *got, message.FilterMillis(tm))
		}
	}
}
