package postgres

import (
	"github.com/agentmem/agentmem/core/internal/pg/filter"
	"github.com/agentmem/agentmem/core/message"
)

// metadataSQL translates a metadata filter into a condition on the stored
// content read as jsonb (a text-only row is a JSON string, where every path
// is missing).
func metadataSQL(f message.Filter, arg func(any) string) string {
	return filter.SQL(f, "m.content::jsonb", []string{"metadata"}, arg)
}
