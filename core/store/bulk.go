package store

import (
	"context"

	"github.com/agentmem/agentmem/core/message"
)

// BulkSaver is the optional capability to save large batches of new
// messages with less work per message than SaveMessages (an import): a
// driver writes a batch of new ids into existing threads of their resources
// in bulk (SQLite: plain multi-row inserts) and hands every other batch to
// SaveMessages. Without it, core.Memory's SaveMessagesBulk calls
// SaveMessages (PostgreSQL's already writes such a batch in one statement;
// a COPY path measured no faster).
type BulkSaver interface {
	// SaveMessagesBulk has SaveMessages' contract and result: the same rows
	// stored, the same refusals writing nothing, the same threads bumped
	// and boundaries pulled back, the saved messages returned with their
	// stored CreatedAt and Seq (in the order SaveMessages would give
	// them). It may cost more than SaveMessages for small batches or
	// batches of stored ids.
	SaveMessagesBulk(ctx context.Context, msgs []message.Message) ([]message.Message, error)
}

// DistinctIDs reports whether no id occurs twice in msgs: the bulk paths take
// only batches of distinct ids (a repeated id is an update within the
// batch, which SaveMessages handles).
func DistinctIDs(msgs []message.Message) bool {
	seen := make(map[string]struct{}, len(msgs))
	for i := range msgs {
		if _, dup := seen[msgs[i].ID]; dup {
			return false
		}
		seen[msgs[i].ID] = struct{}{}
	}
	return true
}
