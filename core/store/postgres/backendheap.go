package postgres

import (
	"context"
	"math/bits"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// A backend's C library (glibc) gives the free memory at the top of its heap
// back to the kernel once more than M_TRIM_THRESHOLD is free there (128 KiB
// at first), and raises that threshold only when it frees a chunk it had
// mapped on its own (one of at least M_MMAP_THRESHOLD, at first 128 KiB),
// to twice that chunk's size. A batch statement frees ~7 times its
// parameters' size at the top of the heap when it ends (~144 KiB for 100
// messages), so in a backend that had never freed a larger chunk every
// batch shrank the heap and the next one grew it again: 36 pages to fault
// in and zero per statement, a third more of the server's CPU for a batch
// of 100 (BENCHMARKS.md, "Eighth session"). Whether a backend had freed one
// depended on what it had run before; in a database with an ICU default
// collation about every second new connection had not.
//
// primeHeap has the backend free a chunk of 4 times the parameters' size,
// rounded up in steps (at least 1 MiB, at most 8 MiB; see primeChunk), before a
// connection's first save with over 8 KiB of parameters (a batch of ~50
// messages), and again before a save that needs a larger chunk than it
// primed for. lpad allocates the database encoding's longest character for
// each character it writes (four bytes in UTF-8, one in LATIN1), so
// primeSQL asks for the chunk divided by that length, and in a UTF-8
// database the chunk costs a quarter of its size in written pages. The
// backend then keeps up to twice the chunk of freed heap for its next
// statements (2 MiB after batches of 100), as does any backend that once
// sorted or hashed a large set in memory.

// primeFrom is the size of a statement's parameters from which primeHeap
// runs first: below it, a statement frees too little to be trimmed.
const primeFrom = 8 << 10

// The chunk primeHeap has the backend free (see primeChunk) lies within
// these bounds. The ceiling bounds what a backend keeps (twice the chunk);
// a save large enough to need more spends far longer on its rows than on
// the heap's regrowth.
const (
	minPrimeChunk = 1 << 20
	maxPrimeChunk = 8 << 20
)

// primedKey holds, in a connection's pgconn.PgConn.CustomData, the size
// of the chunk primeHeap had its backend free.
const primedKey = "agentmem.primedHeap"

// primeHeap primes c's backend (traced, as every statement of the store
// is) when the statement about to run, with vals, needs a larger chunk
// than c was primed with. It is an optimisation only: a failure is left
// for the statement that follows to meet.
func (s *Store) primeHeap(ctx context.Context, c *pgx.Conn, vals [][]byte) {
	n := valuesSize(vals)
	if n < primeFrom {
		return
	}
	pc := c.PgConn()
	primed, _ := pc.CustomData()[primedKey].(int)
	chunk := primeChunk(n)
	if chunk <= primed {
		return
	}
	sql := primeSQL(chunk)
	if s.tracer != nil {
		ctx = s.tracer.TraceQueryStart(ctx, c, pgx.TraceQueryStartData{SQL: sql})
	}
	_, err := pc.Exec(ctx, sql).ReadAll()
	if s.tracer != nil {
		s.tracer.TraceQueryEnd(ctx, c, pgx.TraceQueryEndData{Err: err})
	}
	if err == nil {
		pc.CustomData()[primedKey] = chunk
	}
}

// primeChunk is the chunk to prime for a statement with n bytes of
// parameters: four times n, rounded up to the next eighth of a power of two
// (1, 1.125, 1.25 … 2, 2.25, 2.5 … MiB), within the bounds. The steps keep
// a connection from priming again for every batch a few bytes larger than
// its largest so far (a prime is a round trip and ~2 ms of the backend's
// time for a batch of 1,000) and cost at most an eighth more than the
// chunk asked for.
func primeChunk(n int) int {
	chunk := max(4*n, minPrimeChunk)
	if chunk >= maxPrimeChunk {
		return maxPrimeChunk
	}
	step := 1 << (bits.Len(uint(chunk)) - 1) / 8 // an eighth of the power of two below
	return (chunk + step - 1) / step * step
}

// primeSQL has the backend allocate and free a chunk of the given bytes
// (plus a header) and answers the characters it wrote.
func primeSQL(chunk int) string {
	return "SELECT length(lpad('', " + strconv.Itoa(chunk) +
		" / pg_encoding_max_length(pg_char_to_encoding(getdatabaseencoding())), ' '))"
}

// valuesSize is the bytes of a statement's parameter values.
func valuesSize(vals [][]byte) int {
	n := 0
	for _, v := range vals {
		n += len(v)
	}
	return n
}
