package postgres

import (
	"context"
	"encoding/binary"
	"sync"
	"time"

	"github.com/agentmem/agentmem/core/message"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// A batch's statement takes seven parallel arrays. pgx encodes a []string
// element by element through interfaces, boxing each element and growing
// its buffer from 128 bytes: for a batch of 100 that was ~20% of the
// client's CPU and ~40% of its allocations. The arrays are few and their
// types fixed, so they are written here in PostgreSQL's binary format, into
// one buffer sized up front, and sent with pgconn.

// Type OIDs of the parameters written here.
const (
	oidText        = 25
	oidInt4        = 23
	oidTimestamptz = 1184
)

// paramWriter lays out binary parameter values in one buffer.
type paramWriter struct {
	buf    []byte
	bounds []int // end of each value in buf
}

// paramBuffers keeps parameter buffers for reuse; one of a batch of 100
// messages is ~20 KiB.
var paramBuffers sync.Pool

// maxPooledParams bounds the buffers kept: a rare huge batch is not held.
const maxPooledParams = 1 << 20

// newParamWriter returns a writer with room for size bytes.
func newParamWriter(size int) *paramWriter {
	w, _ := paramBuffers.Get().(*paramWriter)
	if w == nil || cap(w.buf) < size {
		return &paramWriter{buf: make([]byte, 0, size), bounds: make([]int, 0, 10)}
	}
	w.buf, w.bounds = w.buf[:0], w.bounds[:0]
	return w
}

// release returns the buffer for reuse; the values are then invalid.
func (w *paramWriter) release() {
	if cap(w.buf) <= maxPooledParams {
		paramBuffers.Put(w)
	}
}

func (w *paramWriter) int32(v int32) { w.buf = binary.BigEndian.AppendUint32(w.buf, uint32(v)) }

// end closes the value written since the last end.
func (w *paramWriter) end() { w.bounds = append(w.bounds, len(w.buf)) }

// values splits buf into the parameter values.
func (w *paramWriter) values() [][]byte {
	vals := make([][]byte, len(w.bounds))
	start := 0
	for i, end := range w.bounds {
		vals[i], start = w.buf[start:end:end], end
	}
	return vals
}

// arrayHeader writes a one-dimensional array header without NULLs.
func (w *paramWriter) arrayHeader(elemOID uint32, n int) {
	if n == 0 {
		w.int32(0) // no dimensions
		w.int32(0)
		w.int32(int32(elemOID))
		return
	}
	w.int32(1)
	w.int32(0)
	w.int32(int32(elemOID))
	w.int32(int32(n))
	w.int32(1) // lower bound
}

func (w *paramWriter) text(s string) {
	w.buf = append(w.buf, s...)
	w.end()
}

func (w *paramWriter) bytes(b []byte) {
	w.buf = append(w.buf, b...)
	w.end()
}

func (w *paramWriter) int4(v int32) {
	w.int32(v)
	w.end()
}

func (w *paramWriter) timestamptz(t time.Time) {
	w.buf = binary.BigEndian.AppendUint64(w.buf, uint64(microsSinceY2K(t)))
	w.end()
}

// texts writes the array of field's value for each message.
func (w *paramWriter) texts(msgs []message.Message, field func(*message.Message) string) {
	w.arrayHeader(oidText, len(msgs))
	for i := range msgs {
		s := field(&msgs[i])
		w.int32(int32(len(s)))
		w.buf = append(w.buf, s...)
	}
	w.end()
}

func (w *paramWriter) byteTexts(bs [][]byte) {
	w.arrayHeader(oidText, len(bs))
	for _, b := range bs {
		w.int32(int32(len(b)))
		w.buf = append(w.buf, b...)
	}
	w.end()
}

func (w *paramWriter) timestamptzs(ts []time.Time) {
	w.arrayHeader(oidTimestamptz, len(ts))
	for _, t := range ts {
		w.int32(8)
		w.buf = binary.BigEndian.AppendUint64(w.buf, uint64(microsSinceY2K(t)))
	}
	w.end()
}

// tokens writes the array of the messages' token counts.
func (w *paramWriter) tokens(msgs []message.Message) {
	w.arrayHeader(oidInt4, len(msgs))
	for i := range msgs {
		w.int32(4)
		w.int32(int32(msgs[i].Tokens))
	}
	w.end()
}

// y2k is PostgreSQL's epoch for timestamps.
var y2k = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

func microsSinceY2K(t time.Time) int64 {
	return t.Unix()*1_000_000 + int64(t.Nanosecond())/1000 - y2k.Unix()*1_000_000
}

// execBinary runs sql with binary parameter values on a connection of the
// pool, as pgx's Query would (the pool's tracer sees it; a named prepared
// statement when the pool caches statements, an unnamed one otherwise), and
// returns its rows read in full.
func (s *Store) execBinary(ctx context.Context, sql string, vals [][]byte) (*pgconn.Result, *pgtype.Map, error) {
	var res *pgconn.Result
	var types *pgtype.Map
	err := s.exec(ctx, sql, vals, func(c *pgx.Conn, rr *pgconn.ResultReader) (pgconn.CommandTag, error) {
		res, types = rr.Read(), c.TypeMap()
		return res.CommandTag, res.Err
	})
	return res, types, err
}

// execEach runs sql as execBinary does and passes each row's values, in
// binary format, to row; they are valid only during the call. Reading in
// place saves execBinary's three allocations a row.
func (s *Store) execEach(ctx context.Context, sql string, vals [][]byte, row func(values [][]byte)) error {
	return s.exec(ctx, sql, vals, func(_ *pgx.Conn, rr *pgconn.ResultReader) (pgconn.CommandTag, error) {
		for rr.NextRow() {
			row(rr.Values())
		}
		return rr.Close()
	})
}

// exec sends sql on a connection of the pool, traced, and reads its result
// with read.
func (s *Store) exec(ctx context.Context, sql string, vals [][]byte, read func(*pgx.Conn, *pgconn.ResultReader) (pgconn.CommandTag, error)) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	c := conn.Conn()
	if s.tracer != nil {
		ctx = s.tracer.TraceQueryStart(ctx, c, pgx.TraceQueryStartData{SQL: sql})
	}
	var tag pgconn.CommandTag
	rr, err := s.send(ctx, c, sql, vals)
	if err == nil {
		tag, err = read(c, rr)
	}
	if s.tracer != nil {
		s.tracer.TraceQueryEnd(ctx, c, pgx.TraceQueryEndData{CommandTag: tag, Err: err})
	}
	return err
}

// send starts sql with binary parameters and results: a named prepared
// statement when the pool caches statements, an unnamed one otherwise.
func (s *Store) send(ctx context.Context, c *pgx.Conn, sql string, vals [][]byte) (*pgconn.ResultReader, error) {
	formats := []int16{pgx.BinaryFormatCode}
	if !s.prepares {
		return c.PgConn().ExecParams(ctx, sql, vals, nil, formats, formats), nil
	}
	sd, err := c.Prepare(ctx, sql, sql)
	if err != nil {
		return nil, err
	}
	// ExecStatement, unlike ExecPrepared, sends no Describe: the prepared
	// statement's description already has the result's columns.
	return c.PgConn().ExecStatement(ctx, sd, vals, formats, formats), nil
}
