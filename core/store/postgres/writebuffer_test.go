package postgres

import (
	"bytes"
	"math"
	"runtime"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

// bindOf100 is a Bind with the sizes of a batch of 100's parameters.
func bindOf100() (sql string, vals [][]byte, bind *pgproto3.Bind) {
	sql = "SELECT * FROM save_new_messages($1, $2, $3, $4, $5, $6, $7)"
	for i, size := range []int{4_000, 600, 600, 10_000, 1_200, 800, 1_500} {
		vals = append(vals, bytes.Repeat([]byte{byte('a' + i)}, size))
	}
	return sql, vals, &pgproto3.Bind{PreparedStatement: sql, ParameterFormatCodes: []int16{1}, Parameters: vals, ResultFormatCodes: []int16{1}}
}

// reserve sizes the write buffer for a batch's Bind at once from reused
// buffers, and what is sent is the Bind alone.
func TestReserveWritesNothing(t *testing.T) {
	sql, vals, bind := bindOf100()
	send := func(reserved bool) (sent []byte, allocated uint64) {
		var out bytes.Buffer
		f := pgproto3.NewFrontend(nil, &out)
		once := func() {
			out.Reset()
			var r *room
			if reserved {
				r = reserve(f, sql, vals)
			}
			f.SendBind(bind)
			if err := f.Flush(); err != nil {
				t.Fatal(err)
			}
			if r != nil {
				r.releaseFrom(f)
			}
		}
		once()
		// The fewest bytes of five rounds: another goroutine's allocations
		// during a round (the counter is the process's) only add.
		allocated = math.MaxUint64
		for round := 0; round < 5; round++ {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for i := 0; i < 20; i++ {
				once()
			}
			runtime.ReadMemStats(&after)
			allocated = min(allocated, (after.TotalAlloc-before.TotalAlloc)/20)
		}
		return out.Bytes(), allocated
	}
	plain, plainBytes := send(false)
	got, reservedBytes := send(true)
	if !bytes.Equal(got, plain) {
		t.Fatalf("with reserve the frontend sent %d bytes, without %d", len(got), len(plain))
	}
	// With reserve the buffers are reused (the race detector's pool drops
	// a quarter of them); without it the buffer regrows from 1 KiB,
	// allocating well over the Bind's size.
	t.Logf("Bind %d bytes: %d allocated with reserve, %d without", len(plain), reservedBytes, plainBytes)
	if size := uint64(len(plain)); reservedBytes > size/2 || plainBytes < size*3/2 {
		t.Fatalf("bytes allocated per Bind of %d bytes: %d with reserve, %d without", size, reservedBytes, plainBytes)
	}
}

// A room the frontend still writes into (its messages not flushed yet) is
// not reused; once they are flushed, it is.
func TestRoomReleasedOnlyWhenLetGo(t *testing.T) {
	sql, vals, bind := bindOf100()
	var want bytes.Buffer
	f := pgproto3.NewFrontend(nil, &want)
	f.SendBind(bind)
	if err := f.Flush(); err != nil {
		t.Fatal(err)
	}

	var out bytes.Buffer
	f = pgproto3.NewFrontend(nil, &out)
	r := reserve(f, sql, vals)
	f.SendBind(bind)
	r.releaseFrom(f) // as after a call that ended before it was flushed
	if !r.held {
		t.Fatal("a room holding unsent messages was released")
	}
	if err := f.Flush(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want.Bytes()) {
		t.Fatalf("the frontend sent %d bytes, want the Bind's %d", out.Len(), want.Len())
	}
	r.releaseFrom(f)
	if r.held {
		t.Fatal("a flushed room was not released")
	}
}
