// Package pgconnect checks that a new pool reaches its database, so that a
// store's Open reports a failed connection as one (one line saying what
// failed and what to check) instead of as a failure of whichever statement
// happened to run first, and tells the driver errors of a database that is
// unavailable for now (Unavailable) from the others.
package pgconnect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"syscall"

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

// Unavailable reports whether err means that the database could not be
// reached or would not take the statement for now, so that the same
// statement may succeed on a later connection: a lost or refused
// connection, a server shutting down, starting up or in recovery
// (SQLSTATE 57P01, 57P02, 57P03), a connection exception (class 08), or a
// read-only server (25006, or pgx's check of target_session_attrs). A
// server error of any other code is not: a failed login (class 28) or a
// missing database does not heal by retrying.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "57P01", "57P02", "57P03", "25006":
			return true
		}
		return strings.HasPrefix(pgErr.Code, "08") && pgErr.Code != "08P01" // not a protocol violation
	}
	var (
		ce     *pgconn.ConnectError
		netErr net.Error
	)
	return errors.As(err, &ce) || errors.As(err, &netErr) ||
		errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, pgconn.ErrReadOnlyConnection) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE)
}
