// Package connect checks that a new pool reaches its database, so that a
// store's Open reports a failed connection as one (one line saying what
// failed and what to check) instead of as a failure of whichever statement
// happened to run first.
package connect

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Ping acquires a connection of pool. On failure it returns an *memerr.Error
// of code under op: a context error as memerr.Context classifies it, a
// refused or failed connection as "cannot connect to database … as user …
// (check …)" followed by the driver's reasons on one line.
func Ping(ctx context.Context, pool *pgxpool.Pool, op string, code memerr.Code) error {
	err := pool.Ping(ctx)
	if err == nil {
		return nil
	}
	if ce := memerr.Context(op, err); ce != nil {
		return ce
	}
	var ce *pgconn.ConnectError
	if !errors.As(err, &ce) {
		return &memerr.Error{Code: code, Op: op, Msg: "cannot reach the database", Err: err}
	}
	msg := fmt.Sprintf("cannot connect to database %q as user %q (check that the server runs and the connection string's host, port, user and password)",
		ce.Config.Database, ce.Config.User)
	return &memerr.Error{Code: code, Op: op, Msg: msg, Err: oneLine{ce}}
}

// oneLine shows a connection error's reasons on one line: the driver lists
// one per attempted address (and TLS mode), often the same one twice.
type oneLine struct{ err *pgconn.ConnectError }

func (e oneLine) Error() string {
	cause := e.err.Unwrap()
	if cause == nil {
		return e.err.Error()
	}
	var reasons []string
	for _, line := range strings.Split(cause.Error(), "\n") {
		if line = strings.TrimSpace(line); line != "" && !slices.Contains(reasons, line) {
			reasons = append(reasons, line)
		}
	}
	return strings.Join(reasons, "; ")
}

func (e oneLine) Unwrap() error { return e.err }
