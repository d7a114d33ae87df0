package postgres

import (
	"sync"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// pgproto3 writes a connection's messages into one buffer and, whenever it
// flushes more than 1 KiB, drops that buffer for a new one of 1 KiB. The
// ~20 KiB Bind of a batch of 100 therefore regrew it from 1 KiB on every
// save, allocating ~46 KiB: a third of what the save allocated. reserve
// gives the frontend a buffer with room for the whole message, from a pool,
// and release takes it back once the frontend has let go of it.

// room is a frontend message that writes nothing: sent with n > 0 it moves
// the frontend's pending bytes into buf, which has room for n more; sent
// with n == 0 it only notes whether the frontend's buffer is buf. (A
// pgproto3 trace, when one is on, shows it as an Unknown message of length
// 0.)
type room struct {
	buf  []byte
	n    int
	held bool // the frontend's buffer is buf (a check's answer)
}

// rooms keeps the buffers the frontends let go of.
var rooms sync.Pool

// reserve makes room in the frontend's write buffer for the messages that
// run sql with vals (the statement's name is its text) before pgconn writes
// them. It returns nil when the messages fit in 1 KiB or exceed 1 MiB
// (there the regrowth is a small share of the message).
func reserve(f *pgproto3.Frontend, sql string, vals [][]byte) *room {
	n := 64 + len(sql) + 4*len(vals) + valuesSize(vals)
	if n <= 1024 || n > 1<<20 {
		return nil
	}
	r, _ := rooms.Get().(*room)
	if r == nil {
		r = &room{}
	}
	r.n = n
	f.Send(r)
	return r
}

// release puts r's buffer back in the pool unless the connection's
// frontend still writes into it (see releaseFrom). A closed connection's
// frontend is left alone: pgconn may be sending its Terminate from another
// goroutine.
func (r *room) release(c *pgconn.PgConn) {
	if r != nil && !c.IsClosed() {
		r.releaseFrom(c.Frontend())
	}
}

// releaseFrom puts r's buffer back in the pool unless f still writes into
// it: a call that failed before its messages were flushed (an ended
// context) leaves them, and the room, in f's buffer.
func (r *room) releaseFrom(f *pgproto3.Frontend) {
	r.n, r.held = 0, true
	f.Send(r) // a frontend with an encoding error skips it: held stays true
	if !r.held {
		rooms.Put(r)
	}
}

// Encode implements pgproto3.Message.
func (r *room) Encode(dst []byte) ([]byte, error) {
	if r.n == 0 {
		r.held = sameArray(dst, r.buf)
		return dst, nil
	}
	if cap(dst)-len(dst) >= r.n {
		return dst, nil
	}
	if cap(r.buf) < len(dst)+r.n {
		r.buf = make([]byte, 0, len(dst)+r.n)
	}
	return append(r.buf[:0], dst...), nil
}

// sameArray reports whether a and b are slices of one array: their
// capacities end at the same element.
func sameArray(a, b []byte) bool {
	if cap(a) == 0 || cap(b) == 0 {
		return false
	}
	return &a[:cap(a)][cap(a)-1] == &b[:cap(b)][cap(b)-1]
}

// Decode implements pgproto3.Message; the message is never received.
func (*room) Decode([]byte) error { return nil }

// Frontend marks room as a pgproto3.FrontendMessage.
func (*room) Frontend() {}
