// Package testenv is the test environment of the module's tests: the
// addresses of the servers they run against (PostgreSQL, PgBouncer,
// Weaviate), read from the environment scripts/test and /tmp/devenv.env set,
// and the tokenizer tests count budgets with.
//
// A test that needs a server that is not configured is skipped under plain
// `go test` and fails under scripts/test, which sets
// AGENTMEM_REQUIRE_SERVERS=1: a test run that is meant to cover a server
// never passes without it.
package testenv

import (
	"os"
	"testing"

	"github.com/agentmem/agentmem/core/message"
)

// Environment variables the tests read.
const (
	// EnvPostgres is the connection string of a PostgreSQL server with the
	// pgvector extension, as a role that may create schemas and databases.
	EnvPostgres = "AGENTMEM_PG_DSN"
	// EnvPgBouncer is the connection string of a PgBouncer in transaction
	// pooling mode in front of the EnvPostgres server.
	EnvPgBouncer = "AGENTMEM_PGBOUNCER_DSN"
	// EnvWeaviateHost is the host:port of a Weaviate server's REST API.
	EnvWeaviateHost = "AGENTMEM_WEAVIATE_HOST"
	// EnvWeaviateGRPC is the host:port of its gRPC API ("" for REST alone).
	EnvWeaviateGRPC = "AGENTMEM_WEAVIATE_GRPC"
	// EnvRequireServers, set to "1", makes a missing server a failure.
	EnvRequireServers = "AGENTMEM_REQUIRE_SERVERS"
)

// RequireServers reports whether a missing server fails the tests.
func RequireServers() bool { return os.Getenv(EnvRequireServers) == "1" }

// Postgres returns the PostgreSQL connection string; without one the test
// is skipped, or fails under RequireServers.
func Postgres(tb testing.TB) string {
	tb.Helper()
	return need(tb, EnvPostgres)
}

// PgBouncer returns the PgBouncer connection string, as Postgres does.
func PgBouncer(tb testing.TB) string {
	tb.Helper()
	return need(tb, EnvPgBouncer)
}

// Weaviate returns the Weaviate server's REST and gRPC addresses, as
// Postgres does.
func Weaviate(tb testing.TB) (host, grpc string) {
	tb.Helper()
	return need(tb, EnvWeaviateHost), os.Getenv(EnvWeaviateGRPC)
}

// OptionalPostgres returns the PostgreSQL connection string, or "" when
// there is none and RequireServers is off: for tests that cover more
// backends with a server and the others without one.
func OptionalPostgres(tb testing.TB) string {
	tb.Helper()
	return optional(tb, EnvPostgres)
}

// OptionalWeaviate returns the Weaviate addresses as OptionalPostgres does
// ("" host without a server).
func OptionalWeaviate(tb testing.TB) (host, grpc string) {
	tb.Helper()
	return optional(tb, EnvWeaviateHost), os.Getenv(EnvWeaviateGRPC)
}

// Unavailable skips the test for a server or tool it cannot use (format
// says why), or fails it under RequireServers.
func Unavailable(tb testing.TB, format string, args ...any) {
	tb.Helper()
	if RequireServers() {
		tb.Fatalf(format, args...)
	}
	tb.Skipf(format, args...)
}

func need(tb testing.TB, name string) string {
	tb.Helper()
	v := os.Getenv(name)
	if v == "" {
		Unavailable(tb, "%s not set", name)
	}
	return v
}

func optional(tb testing.TB, name string) string {
	tb.Helper()
	v := os.Getenv(name)
	if v == "" && RequireServers() {
		tb.Fatalf("%s=1 but %s is empty", EnvRequireServers, name)
	}
	return v
}

// ByteTokenizer counts one token per byte of text and none for role names,
// so that a message of text length n costs exactly n plus the per-message
// overhead: budgets in tests are exact and cheap to compute.
type ByteTokenizer struct{}

// Count implements core.Tokenizer.
func (ByteTokenizer) Count(s string) int {
	switch message.Role(s) {
	case message.RoleUser, message.RoleAssistant, message.RoleSystem, message.RoleSignal:
		return 0
	}
	return len(s)
}

// Encoding implements core.Tokenizer.
func (ByteTokenizer) Encoding() string { return "bytes" }
