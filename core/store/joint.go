package store

import (
	"context"

	"github.com/agentmem/agentmem/core/message"
)

// Statement is one SQL statement and its arguments: a write another store
// on the same database hands to a JointSaver, to run in its transaction.
// Args are values the database's driver encodes (for PostgreSQL, pgx's
// types for the statement's parameters).
type Statement struct {
	SQL  string
	Args []any
}

// JointSaver is the optional capability of a store on an SQL database to
// save messages together with another store's writes on that database: the
// messages and the statements are one transaction, sent in one round trip.
// core.Memory uses it, when the vector store writes to the same database
// as the same role (vector.StatementWriter), to store messages and their
// vectors at once. Checked.Database is nil without the capability, and
// Checked.SaveMessagesWith returns memerr.ErrUnsupported.
type JointSaver interface {
	// Database returns a comparable value naming the database and role
	// the store writes as (nil when it has nothing to share): the
	// statements of a vector store whose Database is equal may run on this
	// store's connections.
	Database() any
	// SaveMessagesWith saves msgs as SaveMessages does and runs also, in
	// order, after them, in one transaction. It writes all or nothing: any
	// failure (memerr.ErrUnsupported for a batch it does not save so, a
	// refusal of the messages, a failing statement of also) leaves nothing
	// written, so that the caller may save msgs with SaveMessages next;
	// a refusal need not be typed as SaveMessages types it.
	SaveMessagesWith(ctx context.Context, msgs []message.Message, also []Statement) ([]message.Message, error)
}
