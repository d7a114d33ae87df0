package main

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// writeJSON prints v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// table prints aligned columns; a rule is a full line drawn between rows
// without breaking the alignment of the columns around it.
type table struct {
	w    io.Writer
	rows [][]string // a rule is a row of one element prefixed by ruleMark
}

const ruleMark = "\x00rule:"

func newTable(w io.Writer, header ...string) *table {
	t := &table{w: w}
	if len(header) > 0 {
		t.row(header...)
	}
	return t
}

func (t *table) row(cols ...string) { t.rows = append(t.rows, cols) }

func (t *table) rule(text string) { t.rows = append(t.rows, []string{ruleMark + text}) }

// flush prints the rows, every column but the last padded to its widest cell.
func (t *table) flush() error {
	var width []int
	for _, r := range t.rows {
		for i, c := range r {
			if i == len(r)-1 {
				break
			}
			if i >= len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for _, r := range t.rows {
		if len(r) == 1 && strings.HasPrefix(r[0], ruleMark) {
			b.WriteString(strings.TrimPrefix(r[0], ruleMark) + "\n")
			continue
		}
		var line strings.Builder
		for i, c := range r {
			line.WriteString(c)
			if i < len(r)-1 {
				line.WriteString(strings.Repeat(" ", width[i]-utf8.RuneCountInString(c)+2))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	_, err := io.WriteString(t.w, b.String())
	return err
}

// timeText formats a time for text output: UTC to the second.
func timeText(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05")
}

// oneLine squeezes text to one line of at most n runes, other control
// characters (a terminal escape) shown escaped.
func oneLine(s string, n int) string {
	return truncate(escapeUnprintable(strings.Join(strings.Fields(s), " ")), n)
}

// idWidth is the widest id a table shows; a longer one is cut with an
// ellipsis (--json has it whole), so that one id does not widen every row.
const idWidth = 40

// idCell shows an id in a table on one line: quoted and escaped as a Go
// string when it holds a character that does not print (a newline would
// break the row, and unquoted escapes could not be told from the same
// characters written out), and cut to idWidth runes.
func idCell(id string) string {
	if strings.IndexFunc(id, notPrint) >= 0 {
		id = strconv.Quote(id)
	}
	return truncate(id, idWidth)
}

// escapeUnprintable replaces each character that does not print with its Go
// escape (\x1b, \u2028).
func escapeUnprintable(s string) string {
	if strings.IndexFunc(s, notPrint) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if notPrint(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func notPrint(r rune) bool { return !strconv.IsPrint(r) }

// truncate cuts s to n runes, the last an ellipsis.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// orDash returns s, or "-" when it is empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// indent prefixes every line of s.
func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i := range lines {
		lines[i] = prefix + lines[i]
	}
	return strings.Join(lines, "\n")
}
