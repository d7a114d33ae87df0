package importer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agentmem/agentmem/core/message"
	"io"
	"os"
	"time"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/export"
	"github.com/agentmem/agentmem/core"
)

// Spool keeps the records the checking pass decoded and validated, in a
// temporary file, so that the import pass reads them back instead of
// decoding the input a second time; memory stays bounded whatever the
// input's size. Messages with only text parts — nearly every message of a
// chat history — are kept in a compact binary form that takes no JSON
// decoding to read; other records (threads, resources, working memory,
// observations, messages with tool calls or metadata: a few per thread) are
// kept as JSON.
type Spool struct {
	f   *os.File
	w   *bufio.Writer
	buf []byte
}

// Spool entry tags.
const (
	spoolText byte = 1 // a text-only message, binary
	spoolJSON byte = 2 // any record, as JSON
)

// NewSpool returns an empty spool in a temporary file.
func NewSpool() (*Spool, error) {
	f, err := os.CreateTemp("", "agentmem-import-*.spool")
	if err != nil {
		return nil, err
	}
	return &Spool{f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

// Close removes the spool file.
func (s *Spool) Close() {
	s.f.Close()
	os.Remove(s.f.Name())
}

// put appends the record at position n.
func (s *Spool) put(n int, r export.Record) error {
	b := binary.AppendUvarint(s.buf[:0], uint64(n))
	if m := r.Message; r.Kind == export.KindMessage && textOnly(m) {
		b = append(b, spoolText)
		for _, v := range []string{m.ID, string(m.Role), m.ThreadID, m.ResourceID, m.Type} {
			b = appendString(b, v)
		}
		b = binary.AppendVarint(b, m.CreatedAt.Unix())
		b = binary.AppendUvarint(b, uint64(m.CreatedAt.Nanosecond()))
		b = binary.AppendUvarint(b, uint64(len(m.Content.Parts)))
		for _, p := range m.Content.Parts {
			b = appendString(b, p.Text)
		}
	} else {
		raw, err := json.Marshal(r)
		if err != nil {
			return err
		}
		b = append(b, spoolJSON)
		b = appendString(b, string(raw))
	}
	s.buf = b
	_, err := s.w.Write(b)
	return err
}

// textOnly tells whether m is fully described by its ids, role, type, time
// and the texts of its parts, all of type text.
func textOnly(m *message.Message) bool {
	c := &m.Content
	if c.Metadata != nil || c.ProviderMetadata != nil || c.Extra != nil || c.Skipped != nil || len(c.Parts) == 0 {
		return false
	}
	for i := range c.Parts {
		p := &c.Parts[i]
		if p.Type != message.PartText || p.Reasoning != "" || p.Details != nil || p.ToolInvocation != nil || p.Data != "" ||
			p.MimeType != "" || p.Filename != "" || p.Source != nil || p.ProviderMetadata != nil || p.Extra != nil {
			return false
		}
	}
	return true
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// Replay returns a source that reads the spool back: src's name and
// identity, the records the checking pass stored.
func (s *Spool) Replay(src *Source) *Source {
	out := *src
	out.Each = func(ctx context.Context, fn func(int, export.Record) error, _ func(string)) error {
		if err := s.w.Flush(); err != nil {
			return err
		}
		if _, err := s.f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		r := spoolReader{r: bufio.NewReaderSize(s.f, 1<<20)}
		for i := 0; ; i++ {
			n, rec, err := r.next()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return fmt.Errorf("import spool: %w", err)
			}
			if err := fn(n, rec); err != nil {
				return err
			}
			if i%4096 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
		}
	}
	return &out
}

// spoolReader decodes spool entries.
type spoolReader struct {
	r    *bufio.Reader
	err  error
	buf  []byte
	last [4]string // the last role, thread, resource and type read
}

func (s *spoolReader) next() (int, export.Record, error) {
	n, err := binary.ReadUvarint(s.r)
	if err != nil {
		return 0, export.Record{}, err // io.EOF at the end
	}
	tag, err := s.r.ReadByte()
	if err != nil {
		return 0, export.Record{}, err
	}
	var rec export.Record
	switch tag {
	case spoolText:
		rec = s.textMessage()
	case spoolJSON:
		// A copy: decoded values may keep parts of their input.
		s.err = errors.Join(s.err, json.Unmarshal(bytes.Clone(s.bytes()), &rec))
	default:
		s.err = fmt.Errorf("unknown entry %d", tag)
	}
	if errors.Is(s.err, io.EOF) {
		s.err = io.ErrUnexpectedEOF
	}
	return int(n), rec, s.err
}

func (s *spoolReader) textMessage() export.Record {
	m := message.Message{ID: s.string()}
	// Role, thread, resource and type repeat from message to message.
	m.Role = message.Role(s.repeated(&s.last[0]))
	m.ThreadID, m.ResourceID, m.Type = s.repeated(&s.last[1]), s.repeated(&s.last[2]), s.repeated(&s.last[3])
	sec, nsec := s.varint(), s.uvarint()
	m.CreatedAt = time.Unix(sec, int64(nsec)).UTC()
	parts := make([]message.Part, min(s.uvarint(), 1<<20))
	for i := range parts {
		parts[i] = core.TextPart(s.string())
	}
	m.Content = message.Content{Format: 2, Parts: parts}
	return export.Record{Kind: export.KindMessage, Message: &m}
}

func (s *spoolReader) uvarint() uint64 {
	v, err := binary.ReadUvarint(s.r)
	s.err = errors.Join(s.err, err)
	return v
}

func (s *spoolReader) varint() int64 {
	v, err := binary.ReadVarint(s.r)
	s.err = errors.Join(s.err, err)
	return v
}

func (s *spoolReader) string() string {
	b := s.bytes()
	if b == nil {
		return ""
	}
	return string(b)
}

// repeated reads a string, reusing *last when it is the same.
func (s *spoolReader) repeated(last *string) string {
	if b := s.bytes(); string(b) != *last {
		*last = string(b)
	}
	return *last
}

// bytes reads a string's bytes into a buffer that the next read reuses.
func (s *spoolReader) bytes() []byte {
	n := s.uvarint()
	if s.err != nil || n > 1<<31 {
		s.err = errors.Join(s.err, errors.New("damaged entry"))
		return nil
	}
	if uint64(cap(s.buf)) < n {
		s.buf = make([]byte, n)
	}
	b := s.buf[:n]
	_, err := io.ReadFull(s.r, b)
	s.err = errors.Join(s.err, err)
	return b
}
