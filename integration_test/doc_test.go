// Package integration_test holds end-to-end tests and benchmarks that run
// agentmem against real backends (SQLite, PostgreSQL, Weaviate). scripts/test
// starts the servers; scripts/bench runs the benchmarks.
package integration_test
