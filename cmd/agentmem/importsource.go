package main

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

	"github.com/agentmem/agentmem/core"
)

// source is an ordered stream of import records: a JSONL export or a
// migration from another memory's tables. each delivers every record with its
// position (a line or row number, from 1), and reports records it cannot
// import with skip. Two calls yield the same records in the same order.
type source struct {
	// name identifies the input in messages and in the resume checkpoint.
	name string
	// unit names a position: "line" or "record".
	unit string
	// identity names the input for the resume checkpoint (default name).
	identity string
	each     func(ctx context.Context, fn func(n int, r record) error, skip func(reason string)) error
}

// badInput is the error of a record that cannot be imported.
func badInput(src *source, n int, format string, args ...any) error {
	return core.Errorf(CodeBadInput, "import", "%s %s %d: %s", src.name, src.unit, n, fmt.Sprintf(format, args...))
}

// jsonlSource reads an export file; "-" is standard input, copied to a
// temporary file first because import reads its input twice.
func (a *app) jsonlSource(path string) (*source, func(), error) {
	cleanup := func() {}
	if path == "-" {
		tmp, err := os.CreateTemp("", "agentmem-import-*.jsonl")
		if err != nil {
			return nil, nil, err
		}
		cleanup = func() { tmp.Close(); os.Remove(tmp.Name()) }
		if _, err := io.Copy(tmp, a.stdin); err != nil {
			cleanup()
			return nil, nil, err
		}
		path = tmp.Name()
	}
	fi, err := os.Stat(path)
	if err != nil {
		cleanup()
		return nil, nil, usageErr("%v", err)
	}
	abs, _ := filepath.Abs(path)
	src := &source{name: path, unit: "line", identity: fmt.Sprintf("%s %d %d", abs, fi.Size(), fi.ModTime().UnixNano())}
	src.each = func(ctx context.Context, fn func(int, record) error, _ func(string)) error {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		return readJSONL(ctx, src, bufio.NewReaderSize(f, 1<<20), fn)
	}
	return src, cleanup, nil
}

// readJSONL decodes one record per line; the first line must be the header.
func readJSONL(ctx context.Context, src *source, r *bufio.Reader, fn func(int, record) error) error {
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			rec, derr := decodeLine(line)
			if derr != nil {
				return badInput(src, n, "%v", derr)
			}
			if n == 1 && (rec.Kind != kindHeader || rec.Version != formatVersion) {
				return badInput(src, n, "not an agentmem export (want the header {\"kind\":%q,\"version\":%d})", kindHeader, formatVersion)
			}
			if n > 1 {
				if err := fn(n, rec); err != nil {
					return err
				}
			}
		} else if n == 1 && err == nil {
			return badInput(src, n, "empty first line; want the export header")
		}
		if errors.Is(err, io.EOF) {
			if n == 1 && len(bytes.TrimSpace(line)) == 0 {
				return badInput(src, n, "empty input; want an agentmem export")
			}
			return nil
		}
		if err != nil {
			return err
		}
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

func decodeLine(line []byte) (record, error) {
	var rec record
	if err := json.Unmarshal(line, &rec); err != nil {
		return rec, fmt.Errorf("not valid JSON: %v", err)
	}
	return rec, nil
}
