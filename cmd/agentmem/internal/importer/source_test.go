package importer

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/export"
	"github.com/agentmem/agentmem/core"
)

// decodeLineSeeds are lines decodeLine takes in one pass or hands to
// encoding/json.
func decodeLineSeeds(t testing.TB) []string {
	m := core.NewMessage(core.RoleUser, "héllo \"there\"\n")
	m.ID, m.ThreadID, m.ResourceID, m.CreatedAt = "m-1", "t-1", "r-1", time.Date(2025, 1, 2, 3, 4, 5, 6000, time.UTC)
	line, err := export.Encode(export.Record{Kind: export.KindMessage, Message: &m})
	if err != nil {
		t.Fatal(err)
	}
	return []string{
		string(line) + "\n",
		string(line) + " \r\n",
		`{"kind":"message","message":{"id":"m","content":{"parts":[{"type":"text","text":"a"}]}},"kind":"thread"}`,
		`{"kind":"message","message":{"id":"m"}}}`,
		`{"kind":"message","message":{"id":"m","content":{"parts":[{"type":"text","text":"a"}],"metadata":{"k":1}}}}`,
		`{"kind":"message","message":{"id":"m","createdAt":"not a time"}}`,
		`{"kind":"message","message":{"id":"m` + "\xff" + `"}}`,
		`{"kind":"message","message":{"id":"m",}}`,
		`{"message":{"id":"m"},"kind":"message"}`,
		`{"kind":"thread","thread":{"id":"t","resourceId":"r"}}`,
	}
}

// TestDecodeLine: every line decodes to what encoding/json gives, or fails
// as encoding/json fails; the export's own message lines take the one-pass
// decoding.
func TestDecodeLine(t *testing.T) {
	seeds := decodeLineSeeds(t)
	for _, line := range seeds {
		checkDecodeLine(t, []byte(line))
	}
	for _, line := range seeds[:2] {
		if _, ok := fastMessageLine([]byte(line)); !ok {
			t.Errorf("the one-pass decoding declined the export's line %q", line)
		}
	}
}

// FuzzDecodeLine: decodeLine agrees with encoding/json on any input.
func FuzzDecodeLine(f *testing.F) {
	for _, line := range decodeLineSeeds(f) {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkDecodeLine(t, line) })
}

func checkDecodeLine(t *testing.T, line []byte) {
	t.Helper()
	got, gotErr := decodeLine(line)
	var want export.Record
	wantErr := json.Unmarshal(line, &want)
	switch {
	case (gotErr == nil) != (wantErr == nil):
		t.Fatalf("%q: error %v, encoding/json %v", line, gotErr, wantErr)
	case gotErr != nil && gotErr.Error() != "not valid JSON: "+wantErr.Error():
		t.Fatalf("%q: error %q, encoding/json %q", line, gotErr, wantErr)
	case gotErr == nil && !reflect.DeepEqual(got, want):
		t.Fatalf("%q:\ngot  %#v\nwant %#v", line, got, want)
	}
}

// TestReadJSONLLongLines: lines longer than the reader's buffer, blank
// lines and a last line without a newline come through whole, with their
// line numbers.
func TestReadJSONLLongLines(t *testing.T) {
	header, err := export.Encode(export.Record{Kind: export.KindHeader, Version: export.FormatVersion})
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{string(header)}
	for i := range 600 { // more than a chunk
		m := core.NewMessage(core.RoleUser, strings.Repeat("x", i%50))
		m.ID, m.ThreadID, m.ResourceID, m.CreatedAt = fmt.Sprintf("m-%d", i), "t", "r", time.Unix(int64(i), 0).UTC()
		line, err := export.Encode(export.Record{Kind: export.KindMessage, Message: &m})
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(line))
		if i%7 == 0 {
			lines = append(lines, "  ")
		}
	}
	src := &Source{Name: "test", Unit: "line"}
	var got []string
	err = readJSONL(bg, src, bufio.NewReaderSize(strings.NewReader(strings.Join(lines, "\n")), 16), func(n int, r export.Record) error {
		if want := fmt.Sprintf("m-%d", len(got)); r.Message == nil || r.Message.ID != want || strings.TrimSpace(lines[n-1]) == "" {
			t.Fatalf("line %d: got %+v, want message %s", n, r, want)
		}
		got = append(got, r.Message.ID)
		return nil
	})
	if err != nil || len(got) != 600 {
		t.Fatalf("read %d messages, err %v; want 600", len(got), err)
	}
}

var bg = context.Background()
