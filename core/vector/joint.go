package vector

import (
	"context"

	"github.com/agentmem/agentmem/core/store"
)

// StatementWriter is the optional capability of a Store on an SQL database
// to hand its writes to the message store when both write to one database
// as one role (store.JointSaver): core.Memory then stores messages and
// their vectors in one transaction, sent in one round trip, instead of
// saving the messages and upserting their vectors afterwards.
type StatementWriter interface {
	// Database is store.JointSaver's: equal values name one database and
	// role.
	Database() any
	// UpsertStatements checks recs as Upsert does (failing as it fails,
	// before anything is written) and returns the statements that write
	// them as Upsert would, to run in the caller's transaction. A statement
	// fails where Upsert would fail on the server (a resource written with
	// another index version), which aborts that transaction.
	UpsertStatements(ctx context.Context, index string, recs []Record) ([]store.Statement, error)
}
