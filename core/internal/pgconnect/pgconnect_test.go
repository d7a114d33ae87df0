package pgconnect

import (
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestUnavailable(t *testing.T) {
	pg := func(code string) error { return fmt.Errorf("query: %w", &pgconn.PgError{Code: code}) }
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"admin shutdown", pg("57P01"), true},
		{"crash shutdown", pg("57P02"), true},
		{"starting up", pg("57P03"), true},
		{"read-only transaction", pg("25006"), true},
		{"connection failure", pg("08006"), true},
		{"transaction resolution unknown", pg("08007"), true},
		{"protocol violation", pg("08P01"), false},
		{"connect error", &pgconn.ConnectError{Config: &pgconn.Config{}}, true},
		{"unique violation", pg("23505"), false},
		{"serialization failure", pg("40001"), false},
		{"read-only connection at connect", fmt.Errorf("connect: %w", pgconn.ErrReadOnlyConnection), true},
		{"closed connection", fmt.Errorf("exec: %w", pgconn.ErrConnClosed), true},
		{"unexpected EOF", fmt.Errorf("receive: %w", io.ErrUnexpectedEOF), true},
		{"refused", fmt.Errorf("dial: %w", syscall.ECONNREFUSED), true},
		{"other", errors.New("boom"), false},
	} {
		if got := Unavailable(c.err); got != c.want {
			t.Errorf("%s: Unavailable(%v) = %v, want %v", c.name, c.err, got, c.want)
		}
	}
}
