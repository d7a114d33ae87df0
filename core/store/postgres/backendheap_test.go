package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"

	"github.com/jackc/pgx/v5"
)

// A connection's backend is primed before its first save with over 8 KiB
// of parameters, with a chunk of four times their size rounded up in steps
// (at least 1 MiB), and again only before a save that needs a larger chunk;
// small saves, and saves a little larger than the largest so far, do not
// prime.
func TestPrimeHeap(t *testing.T) {
	schema := freshSchema(t)
	dsn := testDSN(t)
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	ctx, cancel := context.WithTimeout(bg(), 30*time.Second)
	defer cancel()
	s, err := Open(ctx, dsn+sep+"pool_max_conns=1", WithSchema(schema)) // one connection to look at
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.SaveThread(bg(), store.Thread{ID: "t", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	primed := func() int {
		conn, err := s.pool.Acquire(bg())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Release()
		n, _ := conn.Conn().PgConn().CustomData()[primedKey].(int)
		return n
	}
	n := 0
	save := func(count, size int) {
		t.Helper()
		batch := make([]message.Message, count)
		for i := range batch {
			n++
			batch[i] = message.NewMessage(message.RoleUser, strings.Repeat("x", size))
			batch[i].ID, batch[i].ThreadID, batch[i].ResourceID = fmt.Sprintf("m%06d", n), "t", "r"
		}
		if _, err := s.SaveMessages(bg(), batch); err != nil {
			t.Fatal(err)
		}
	}
	const between = 1 // a chunk between the bounds
	for _, step := range []struct {
		count, size int
		want        int // the chunk primed for after the save; -1: as before
	}{
		{1, 100, 0},                  // a message
		{3, 100, 0},                  // a small batch
		{1, 20_000, minPrimeChunk},   // ~20 KB of parameters
		{100, 100, -1},               // as much again: no change
		{500, 1000, between},         // ~0.5 MB: a larger chunk
		{100, 100, -1},               // no change
		{510, 1000, -1},              // 2% more: the same chunk
		{100, 40_000, maxPrimeChunk}, // ~4 MB: the ceiling
	} {
		before := primed()
		save(step.count, step.size)
		got := primed()
		switch {
		case step.want > 0 && step.want != between && got != step.want:
			t.Fatalf("after %d messages of %d bytes: primed for %d bytes, want %d", step.count, step.size, got, step.want)
		case step.want == between && (got <= minPrimeChunk || got >= maxPrimeChunk):
			t.Fatalf("after %d messages of %d bytes: primed for %d bytes, want between %d and %d", step.count, step.size, got, minPrimeChunk, maxPrimeChunk)
		case step.want == 0 && got != 0:
			t.Fatalf("after %d messages of %d bytes: primed for %d bytes, want none", step.count, step.size, got)
		case step.want < 0 && got != before:
			t.Fatalf("after %d messages of %d bytes: primed for %d bytes, was %d", step.count, step.size, got, before)
		}
	}
}

// primeChunk rounds four times the parameters up to an eighth of a power
// of two within the bounds, so that a connection primes again only when a
// batch outgrows its step.
func TestPrimeChunk(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct{ n, want int }{
		{primeFrom, mib},
		{mib / 4, mib},
		{mib/4 + 1, mib + mib/8},
		{268_558, mib + mib/8}, // a batch of 1,000 30-word messages
		{272_782, mib + mib/8}, // and a later, slightly larger one
		{mib / 2, 2 * mib},
		{mib/2 + 1, 2*mib + mib/4},
		{3 * mib / 4, 3 * mib},
		{maxPrimeChunk/4 - 1, maxPrimeChunk},
		{1 << 30, maxPrimeChunk},
	} {
		if got := primeChunk(c.n); got != c.want {
			t.Errorf("primeChunk(%d) = %d, want %d", c.n, got, c.want)
		}
	}
}

// The prime's lpad writes as many characters as make the chunk in the
// database's encoding: a quarter of its bytes in UTF-8, where a character
// may take four, and all of them in a single-byte encoding.
func TestPrimeSQLEncoding(t *testing.T) {
	const chunk = minPrimeChunk
	for _, db := range []struct {
		name, dsn string
		chars     int
	}{
		{"UTF8", testDSN(t), chunk / 4},
		{"LATIN1", createDatabase(t, "agentmem_latin1_", "ENCODING 'LATIN1' LOCALE_PROVIDER libc LOCALE 'C'", "CREATEDB"), chunk},
	} {
		ctx, cancel := context.WithTimeout(bg(), 30*time.Second)
		conn, err := pgx.Connect(ctx, db.dsn)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		var chars int
		err = conn.QueryRow(ctx, primeSQL(chunk)).Scan(&chars)
		conn.Close(ctx)
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", db.name, err)
		}
		if chars != db.chars {
			t.Errorf("%s: the prime wrote %d characters for a chunk of %d bytes, want %d", db.name, chars, chunk, db.chars)
		}
	}
}
