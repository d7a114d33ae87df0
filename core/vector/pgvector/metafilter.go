package pgvector

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/agentmem/agentmem/core/internal/pg/filter"
	"github.com/agentmem/agentmem/core/message"
)

// metadataJSON is the stored form of a record's message metadata: nil (SQL
// NULL) when it has none, so that a filter finds every key missing, as it
// does for an empty map.
func metadataJSON(md map[string]any) *string {
	if len(md) == 0 {
		return nil
	}
	b, err := json.Marshal(md)
	if err != nil {
		// Metadata reached the store through a message, whose encoding
		// already succeeded; a value JSON cannot hold is not filterable.
		return nil
	}
	// jsonb cannot hold the NUL character, even escaped.
	if strings.Contains(string(b), `\u0000`) {
		return nil
	}
	js := string(b)
	return &js
}

// params holds a statement's arguments and numbers the ones added.
type params struct {
	args []any
}

// arg adds v and returns its placeholder.
func (p *params) arg(v any) string {
	p.args = append(p.args, v)
	return "$" + strconv.Itoa(len(p.args))
}

// metadataCond is the condition of f on the metadata column of the table
// aliased alias ("" for none), "true" when f is empty.
func metadataCond(f message.Filter, alias string, p *params) string {
	if f.IsZero() {
		return "true"
	}
	col := "metadata"
	if alias != "" {
		col = alias + ".metadata"
	}
	return metadataSQL(f, col, p.arg)
}

// metadataSQL translates a metadata filter into a condition on the jsonb
// column col (SQL NULL for a record without metadata, so every key is
// missing).
func metadataSQL(f message.Filter, col string, arg func(any) string) string {
	return filter.SQL(f, col, nil, arg)
}
