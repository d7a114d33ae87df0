package importer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/clierr"
	"github.com/agentmem/agentmem/cmd/agentmem/internal/export"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
)

// Source is an ordered stream of import records: a JSONL export or a
// migration from another memory's tables. Each delivers every record with its
// position (a line or row number, from 1), and reports records it cannot
// import with skip. Two calls yield the same records in the same order.
type Source struct {
	// Name identifies the input in messages and in the resume checkpoint.
	Name string
	// Unit names a position: "line" or "record".
	Unit string
	// Identity names the input for the resume checkpoint (default Name).
	Identity string
	Each     func(ctx context.Context, fn func(n int, r export.Record) error, skip func(reason string)) error
}

// BadInput is the error of record n of src, which cannot be imported.
func BadInput(src *Source, n int, format string, args ...any) error {
	return memerr.Errorf(clierr.CodeBadInput, "import", "%s %s %d: %s", src.Name, src.Unit, n, fmt.Sprintf(format, args...))
}

// JSONL reads an export file; "-" is stdin, copied to a temporary file first
// (a source can be read more than once).
func JSONL(path string, stdin io.Reader) (*Source, func(), error) {
	cleanup := func() {}
	if path == "-" {
		tmp, err := os.CreateTemp("", "agentmem-import-*.jsonl")
		if err != nil {
			return nil, nil, err
		}
		cleanup = func() { tmp.Close(); os.Remove(tmp.Name()) }
		if _, err := io.Copy(tmp, stdin); err != nil {
			cleanup()
			return nil, nil, err
		}
		path = tmp.Name()
	}
	fi, err := os.Stat(path)
	if err != nil {
		cleanup()
		return nil, nil, clierr.Usage("%v", err)
	}
	abs, _ := filepath.Abs(path)
	src := &Source{Name: path, Unit: "line", Identity: fmt.Sprintf("%s %d %d", abs, fi.Size(), fi.ModTime().UnixNano())}
	src.Each = func(ctx context.Context, fn func(int, export.Record) error, _ func(string)) error {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		return readJSONL(ctx, src, bufio.NewReaderSize(f, 1<<20), fn)
	}
	return src, cleanup, nil
}

// linesPerChunk is the number of lines a decoding worker takes at a time:
// enough to make handing work over cheap, few enough to keep memory small.
const linesPerChunk = 256

// lineChunk is a run of consecutive lines and, once done is closed, their
// decoded records.
type lineChunk struct {
	first int      // line number of lines[0]
	lines [][]byte // nil for a blank line
	recs  []export.Record
	errs  []error // decoding errors, by line
	eof   bool    // the last line ends the input without a newline
	done  chan struct{}
}

func (c *lineChunk) decode() {
	c.recs, c.errs = make([]export.Record, len(c.lines)), make([]error, len(c.lines))
	for i, line := range c.lines {
		if line != nil {
			c.recs[i], c.errs[i] = decodeLine(line)
		}
	}
	close(c.done)
}

// readJSONL decodes one record per line, on all cores, and hands the
// records to fn in order; the first line must be the header. At most
// 2×GOMAXPROCS chunks of lines are in memory at once.
func readJSONL(ctx context.Context, src *Source, r *bufio.Reader, fn func(int, export.Record) error) error {
	workers := runtime.GOMAXPROCS(0)
	ctx, cancel := context.WithCancel(ctx)
	order, work := make(chan *lineChunk, 2*workers), make(chan *lineChunk, workers)
	var wg sync.WaitGroup
	var readErr error
	wg.Go(func() {
		defer close(order)
		defer close(work)
		readErr = readChunks(ctx, r, order, work)
	})
	for range workers {
		wg.Go(func() {
			for c := range work {
				c.decode()
			}
		})
	}
	err := deliver(ctx, src, order, fn)
	cancel()
	for range order { // unblock the reader
	}
	wg.Wait()
	if err == nil {
		err = readErr
	}
	return err
}

// readChunks reads r in chunks of lines, handing each to the decoders
// (work) and, in input order, to the consumer (order). A chunk's lines are
// read into one buffer.
func readChunks(ctx context.Context, r *bufio.Reader, order, work chan<- *lineChunk) error {
	c := &lineChunk{first: 1, done: make(chan struct{})}
	var data []byte
	var spans [][2]int // of the lines in data; {-1, -1} for a blank line
	send := func() error {
		for _, sp := range spans {
			if sp[0] < 0 {
				c.lines = append(c.lines, nil)
			} else {
				c.lines = append(c.lines, data[sp[0]:sp[1]:sp[1]])
			}
		}
		for _, ch := range []chan<- *lineChunk{order, work} {
			select {
			case ch <- c:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	}
	for n := 1; ; n++ {
		start := len(data)
		var err error
		data, err = appendLine(r, data)
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if errors.Is(err, io.EOF) && len(data) == start && n > 1 {
			return send()
		}
		sp := [2]int{start, len(data)}
		if len(bytes.TrimSpace(data[start:])) == 0 {
			sp = [2]int{-1, -1}
		}
		spans = append(spans, sp)
		if errors.Is(err, io.EOF) {
			c.eof = true
			return send()
		}
		if len(spans) == linesPerChunk {
			if err := send(); err != nil {
				return err
			}
			c = &lineChunk{first: n + 1, done: make(chan struct{})}
			data, spans = make([]byte, 0, len(data)), spans[:0]
		}
	}
}

// appendLine appends the next line of r, with its newline, to buf.
func appendLine(r *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		part, err := r.ReadSlice('\n')
		buf = append(buf, part...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return buf, err
		}
	}
}

// deliver hands the decoded records to fn in order and stops at the first
// bad line or failed fn.
func deliver(ctx context.Context, src *Source, order <-chan *lineChunk, fn func(int, export.Record) error) error {
	for c := range order {
		select {
		case <-c.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		emptyInput := c.first == 1 && len(c.lines) == 1 && c.eof
		for i, line := range c.lines {
			if err := deliverLine(src, c.first+i, line == nil, emptyInput, c.recs[i], c.errs[i], fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// deliverLine checks line n and hands its record to fn; emptyInput tells
// that a blank first line is the whole input.
func deliverLine(src *Source, n int, blank, emptyInput bool, rec export.Record, derr error, fn func(int, export.Record) error) error {
	switch {
	case blank && n == 1 && emptyInput:
		return BadInput(src, n, "empty input; want an agentmem export")
	case blank && n == 1:
		return BadInput(src, n, "empty first line; want the export header")
	case blank:
		return nil
	case derr != nil:
		return BadInput(src, n, "%v", derr)
	case n == 1 && (rec.Kind != export.KindHeader || rec.Version != export.FormatVersion):
		return BadInput(src, n, "not an agentmem export (want the header {\"kind\":%q,\"version\":%d})", export.KindHeader, export.FormatVersion)
	case n == 1:
		return nil
	}
	return fn(n, rec)
}

// messagePrefix and messageSuffix surround the message of a message line
// as export writes it (keys sorted, no white space).
var messagePrefix, messageSuffix = []byte(`{"kind":"message","message":`), []byte("}")

// decodeLine decodes a line. A message line as export writes it, with
// text-only content, is decoded in one pass (message.DecodeTextMessage,
// several times faster); any other line, or one that pass declines, by
// encoding/json, which gives the same record or the error.
func decodeLine(line []byte) (export.Record, error) {
	if rec, ok := fastMessageLine(line); ok {
		return rec, nil
	}
	var rec export.Record
	if err := json.Unmarshal(line, &rec); err != nil {
		return rec, fmt.Errorf("not valid JSON: %v", err)
	}
	return rec, nil
}

// fastMessageLine decodes a message line as export writes it in one pass.
func fastMessageLine(line []byte) (export.Record, bool) {
	body, ok := bytes.CutPrefix(line, messagePrefix)
	if ok {
		body, ok = bytes.CutSuffix(bytes.TrimRight(body, " \t\r\n"), messageSuffix)
	}
	if !ok {
		return export.Record{}, false
	}
	m, ok := message.DecodeTextMessage(body)
	return export.Record{Kind: export.KindMessage, Message: &m}, ok
}
