// Package ident names the PostgreSQL database and role a connection pool
// reaches, so that two stores opened on one database, each with its own
// pool, can tell they may write in one transaction (store.JointSaver,
// vector.StatementWriter).
package ident

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Querier is what Of needs of a pool: *pgxpool.Pool and *pgx.Conn have it.
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Of returns the identity of the server instance (its start time, address
// and port), the database and the role q reaches: equal values name one
// database used by one role, which may then run the other's statements.
// The functions it calls are open to every role. A server reached through
// a pooler (PgBouncer) reports the server behind it.
func Of(ctx context.Context, q Querier) (string, error) {
	var id string
	err := q.QueryRow(ctx, `SELECT concat_ws(' ', pg_postmaster_start_time(), inet_server_addr(), inet_server_port(),
	quote_ident(current_database()), quote_ident(current_user))`).Scan(&id)
	return id, err
}
