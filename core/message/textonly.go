package message

import (
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"
)

// decodeTextOnly decodes, in one pass over b, the most common shapes of
// content: a JSON string (one text part), or format 2 with only text parts
// ({"type":"text","text":...}) and optionally the v4 "content" mirror equal
// to the parts' text — what most stored rows and exported lines are. ok is
// false for anything else (other part types or fields, metadata, null,
// escapes it does not take, repeated keys, invalid JSON), which
// UnmarshalJSON then decodes in general; when ok, c is what the general
// decoding gives.
func (c *Content) decodeTextOnly(b string) bool {
	s := textScan{b: b}
	return s.textContent(c) && s.end()
}

// DecodeTextMessage decodes b, the JSON object of one message, in one pass
// when it has the common shape: the fields id, role, threadId, resourceId,
// createdAt and type as strings and content that is format 2 with only text
// parts (see decodeTextOnly), each at most once, nothing else. ok is false
// for any other shape (other, repeated or null fields, other content,
// invalid JSON), which the caller then decodes with encoding/json; when ok,
// m is what json.Unmarshal(b, &m) gives. An import of a chat history decodes
// millions of such objects.
func DecodeTextMessage(b []byte) (m Message, ok bool) {
	s := textScan{b: string(b)} // one copy: the fields are substrings of it
	seen := 0
	ok = s.object(func(key string) bool {
		bit := fieldBit(key, "id", "role", "threadId", "resourceId", "createdAt", "type", "content")
		if bit == 0 || seen&bit != 0 {
			return false
		}
		seen |= bit
		switch bit {
		case 1 << 4: // createdAt
			return s.time(&m.CreatedAt)
		case 1 << 6: // content
			return s.textContent(&m.Content)
		}
		v, ok := s.str()
		switch bit {
		case 1 << 0:
			m.ID = v
		case 1 << 1:
			m.Role = Role(v)
		case 1 << 2:
			m.ThreadID = v
		case 1 << 3:
			m.ResourceID = v
		default:
			m.Type = v
		}
		return ok
	})
	return m, ok && s.end()
}

// textContent reads content of the shape decodeTextOnly takes into c.
func (s *textScan) textContent(c *Content) bool {
	if s.ws(); s.i < len(s.b) && s.b[s.i] == '"' { // one text part (MarshalStored's short form, format 1)
		text, ok := s.str()
		if ok {
			*c = Content{Format: 2, Parts: []Part{TextPart(text)}}
		}
		return ok
	}
	var parts []Part
	var mirror *string
	seen := 0
	ok := s.object(func(key string) bool {
		bit := fieldBit(key, "format", "parts", "content")
		if bit == 0 || seen&bit != 0 {
			return false
		}
		seen |= bit
		switch bit {
		case 1: // format
			return s.number()
		case 2: // parts
			parts = make([]Part, 0, 1)
			return s.array(func() bool {
				p, ok := s.textPart()
				parts = append(parts, p)
				return ok
			})
		}
		text, ok := s.str()
		mirror = &text
		return ok
	})
	if !ok || len(parts) == 0 {
		return false
	}
	*c = Content{Format: 2, Parts: parts}
	if mirror != nil && *mirror != "" {
		msg := Message{Content: *c}
		return msg.Text() == *mirror
	}
	return true
}

// time reads a string as encoding/json decodes it into a time.Time: its
// raw bytes, quotes included, go to UnmarshalJSON.
func (s *textScan) time(t *time.Time) bool {
	s.ws()
	start := s.i
	if !s.skipStr() {
		return false
	}
	return t.UnmarshalJSON([]byte(s.b[start:s.i])) == nil
}

// skipStr passes over a string without decoding it; false when it is not
// one or has a control character (invalid JSON).
func (s *textScan) skipStr() bool {
	if !s.next('"') {
		return false
	}
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			return true
		case c == '\\':
			s.i += 2
		case c < 0x20:
			return false
		default:
			s.i++
		}
	}
	return false
}

// fieldBit is 1<<i for the i-th of names equal to key, or 0.
func fieldBit(key string, names ...string) int {
	for i, n := range names {
		if key == n {
			return 1 << i
		}
	}
	return 0
}

// textScan reads JSON values from b at i. The strings it returns are
// substrings of b.
type textScan struct {
	b string
	i int
}

func (s *textScan) ws() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

// next consumes c after optional white space.
func (s *textScan) next(c byte) bool {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// end reports whether only white space is left.
func (s *textScan) end() bool {
	s.ws()
	return s.i == len(s.b)
}

// object reads an object, calling field after each key and its colon to
// read the value. Keys are compared in place (a key with escapes is not
// one of the names decodeTextOnly takes).
func (s *textScan) object(field func(key string) bool) bool {
	if !s.next('{') {
		return false
	}
	if s.next('}') {
		return true
	}
	for {
		key, ok := s.plainStr()
		if !ok || !s.next(':') || !field(key) {
			return false
		}
		if s.next('}') {
			return true
		}
		if !s.next(',') {
			return false
		}
	}
}

// array reads a non-empty array, calling elem to read each element.
func (s *textScan) array(elem func() bool) bool {
	if !s.next('[') {
		return false
	}
	for {
		if !elem() {
			return false
		}
		if s.next(']') {
			return true
		}
		if !s.next(',') {
			return false
		}
	}
}

// textPart reads {"type":"text","text":...} (keys in either order, text
// optional).
func (s *textScan) textPart() (Part, bool) {
	p := Part{}
	seen := 0
	ok := s.object(func(key string) bool {
		bit := fieldBit(key, "type", "text")
		if bit == 0 || seen&bit != 0 {
			return false
		}
		seen |= bit
		v, ok := s.str()
		if bit == 1 { // type
			p.Type = v
			return ok && v == PartText
		}
		p.Text = v
		return ok
	})
	return p, ok && seen&1 != 0
}

// str reads a string. Strings without escapes are taken as they are, as
// substrings of b; the rest are unquoted by encoding/json.
func (s *textScan) str() (string, bool) {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '"' {
		// Without a backslash before it, the next quote ends the string.
		if n := strings.IndexByte(s.b[s.i+1:], '"'); n >= 0 {
			raw := s.b[s.i+1 : s.i+1+n]
			if strings.IndexByte(raw, '\\') < 0 {
				switch plainText(raw) {
				case textPlain:
					s.i += n + 2
					return raw, true
				case textControl:
					return "", false
				}
			}
		}
	}
	start := s.i
	if !s.skipStr() {
		return "", false
	}
	var out string
	err := json.Unmarshal([]byte(s.b[start:s.i]), &out)
	return out, err == nil
}

// The classes of an unescaped string's bytes (plainText).
const (
	textPlain   = iota // valid UTF-8 without control characters: the string as it is
	textControl        // a control character: not JSON
	textInvalid        // invalid UTF-8: encoding/json replaces it
)

// plainText classifies the bytes between the quotes of a string without
// escapes. ASCII text, what most stored texts are, is checked eight bytes
// at a time.
func plainText(raw string) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(raw); i += 8 {
		w := uint64(raw[i]) | uint64(raw[i+1])<<8 | uint64(raw[i+2])<<16 | uint64(raw[i+3])<<24 |
			uint64(raw[i+4])<<32 | uint64(raw[i+5])<<40 | uint64(raw[i+6])<<48 | uint64(raw[i+7])<<56
		// A byte at or above 0x80, or one below 0x20 (whose subtraction
		// borrows into its high bit while the byte's own high bit is clear).
		if w&hi != 0 || (w-0x20*lo)&^w&hi != 0 {
			break
		}
	}
	ascii := true
	for ; i < len(raw); i++ {
		switch c := raw[i]; {
		case c < 0x20:
			return textControl
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	if ascii || utf8.ValidString(raw) {
		return textPlain
	}
	return textInvalid
}

// plainStr reads a string without escapes, returning its bytes in b.
func (s *textScan) plainStr() (string, bool) {
	if !s.next('"') {
		return "", false
	}
	start := s.i
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], true
		case c == '\\' || c < 0x20:
			return "", false
		}
		s.i++
	}
	return "", false
}

// number reads a JSON number.
func (s *textScan) number() bool {
	s.ws()
	start := s.i
	for s.i < len(s.b) && (s.b[s.i] >= '0' && s.b[s.i] <= '9' || s.b[s.i] == '-' || s.b[s.i] == '+' || s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
	}
	return s.i > start && json.Valid([]byte(s.b[start:s.i]))
}
