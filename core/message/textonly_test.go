package message

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

// TestDecodeTextOnly: the one-pass decoding of text-only content gives what
// the general decoding gives, and declines every other shape (which the
// general decoding then handles, or refuses).
//
// decodeGeneral is the general decoding without the one-pass shortcut that
// UnmarshalJSON takes first: a string through encoding/json, an object field
// by field.
func TestDecodeTextOnly(t *testing.T) {
	taken := []string{
		`{"format":2,"parts":[{"type":"text","text":"hi"}]}`,
		`{"content":"a\nb","format":2,"parts":[{"text":"a","type":"text"},{"text":"b","type":"text"}]}`,
		` { "parts" : [ { "type" : "text" } ] , "format" : 2 } `,
		`{"parts":[{"type":"text","text":"esc \"q\" \u00e9 \ud83d\ude00 \\ /"}],"content":""}`,
		`{"parts":[{"type":"text","text":"é ü 日本"}],"content":"é ü 日本"}`,
		`{"parts":[{"type":"text","text":"bad ` + "\xff" + ` utf8"}]}`,
		`"one text part"`, ` "esc \"q\" \u003c \ud83d x" `, `"bad ` + "\xff" + ` utf8"`, `""`,
	}
	for _, in := range taken {
		var fast, general Content
		if !fast.decodeTextOnly(in) {
			t.Errorf("declined %s", in)
			continue
		}
		general = Content{Format: 2}
		if err := general.decodeGeneral([]byte(in)); err != nil {
			t.Fatalf("general decoding of %s: %v", in, err)
		}
		if !reflect.DeepEqual(fast, general) {
			t.Errorf("%s:\none pass %#v\ngeneral  %#v", in, fast, general)
		}
	}
	declined := []string{
		`{"parts":[{"type":"text","text":"a"}],"content":"different"}`, // mirror kept in Extra
		`{"parts":[]}`, `{"parts":null}`, `{"format":2}`, `{}`,
		`{"parts":[{"type":"reasoning","reasoning":"r"}]}`,
		`{"parts":[{"type":"text","text":"a","providerMetadata":{}}]}`,
		`{"parts":[{"type":"text","text":null}]}`,
		`{"parts":[{"text":"no type"}]}`,
		`{"parts":[{"type":"text","text":"a"}],"metadata":{"k":1}}`,
		`{"parts":[{"type":"text","text":"a"}],"Parts":[]}`,
		`{"parts":[{"type":"text","text":"a"}],"parts":[{"type":"text","text":"b"}]}`,
		`{"parts":[{"type":"text","text":"a"}],}`,
		`{"parts":[{"type":"text","text":"a"}]} x`,
		`{"format":2-1,"parts":[{"type":"text","text":"a"}]}`,
		`{"parts":[{"type":"text","text":"a` + "\x01" + `"}]}`,
		`{"parts":[{"type":"text","text":"a\q"}]}`,
		`{"parts":[{"type":"text","text":"a`,
		`{"format":2,"p\u0061rts":[{"type":"text","text":"a"}]}`, // keys are compared as written
		`"a\q"`, `"a` + "\x01" + `"`, `"a`, `"a" "b"`, `"a",`,
	}
	for _, in := range declined {
		var c Content
		if c.decodeTextOnly(in) {
			t.Errorf("took %s as %#v", in, c)
		}
	}
	// Stored content decodes the same from a string as from bytes.
	for _, in := range taken {
		var fromBytes, fromString Content
		errB, errS := UnmarshalStored([]byte(in), &fromBytes), UnmarshalStored(in, &fromString)
		if errB != nil || errS != nil || !reflect.DeepEqual(fromBytes, fromString) {
			t.Errorf("UnmarshalStored(%s): bytes %#v, %v; string %#v, %v", in, fromBytes, errB, fromString, errS)
		}
	}
	// A string that is not JSON is refused, as stored content too.
	for _, in := range []string{`"a\q"`, `"a`, `"a" "b"`} {
		var c Content
		if err := UnmarshalStored([]byte(in), &c); err == nil {
			t.Errorf("UnmarshalStored(%s) = %#v, want an error", in, c)
		}
	}
}

// messageLines are message objects in the shapes DecodeTextMessage takes
// and declines, the seeds of FuzzDecodeTextMessage.
var messageLines = []string{
	`{"content":{"format":2,"parts":[{"text":"hi","type":"text"}]},"createdAt":"2025-01-01T00:00:01.5Z","id":"m-1","resourceId":"user-1","role":"user","threadId":"thread-1"}`,
	` { "id" : "m\u002d2" , "role":"assistant","type":"v2","createdAt":"2025-01-01T03:00:00+03:00","content":{"parts":[{"type":"text","text":"a ` + "\xff" + `"}]} } `,
	`{"id":"m","content":{"content":"a\nb","parts":[{"text":"a","type":"text"},{"text":"b","type":"text"}]}}`,
	`{"id":"m","content":"plain text"}`,
	`{"id":"m","content":"plain \u00e9 \ud83d"}`,
	`{}`,
	`{"id":"m","id":"n"}`,
	`{"id":null}`,
	`{"ID":"m"}`,
	`{"id":"m","tokens":3}`,
	`{"id":"m","createdAt":"yesterday"}`,
	`{"id":"m","createdAt":null}`,
	`{"id":"m","content":{"parts":[{"type":"reasoning","reasoning":"r"}]}}`,
	`{"id":"m","content":{"parts":[{"type":"text","text":"a"}],"metadata":{"k":1}}}`,
	`{"id":"m"} {}`,
	`{"id":"m",}`,
	`{"id":"m` + "\x01" + `"}`,
	`{"id":"m`,
}

// TestDecodeTextMessage: the one-pass decoding gives what encoding/json
// gives whenever it takes an object, and it takes the shapes an export
// writes for chat messages.
func TestDecodeTextMessage(t *testing.T) {
	for i, in := range messageLines {
		_, ok := DecodeTextMessage([]byte(in))
		if want := i < 6; ok != want {
			t.Errorf("%s: taken %v, want %v", in, ok, want)
		}
		checkDecodeTextMessage(t, []byte(in))
	}
}

// FuzzDecodeTextMessage: whatever the one-pass decoding takes, encoding/json
// decodes without error to the same message.
func FuzzDecodeTextMessage(f *testing.F) {
	for _, in := range messageLines {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkDecodeTextMessage(t, b) })
}

func checkDecodeTextMessage(t *testing.T, b []byte) {
	t.Helper()
	fast, ok := DecodeTextMessage(b)
	if !ok {
		return
	}
	var general Message
	if err := json.Unmarshal(b, &general); err != nil {
		t.Fatalf("took %q, which encoding/json refuses: %v", b, err)
	}
	if !reflect.DeepEqual(fast, general) {
		t.Fatalf("%q:\none pass %#v\ngeneral  %#v", b, fast, general)
	}
}

func (c *Content) decodeGeneral(b []byte) error {
	b = bytes.TrimSpace(b)
	if b[0] != '"' {
		return c.decodeObject(b)
	}
	var text string
	if err := json.Unmarshal(b, &text); err != nil {
		return err
	}
	c.Parts = []Part{TextPart(text)}
	return nil
}

// TestPlainText: the eight-byte check classifies as the byte loop does,
// wherever the control character or non-ASCII byte sits.
func TestPlainText(t *testing.T) {
	byteLoop := func(raw string) int {
		for i := 0; i < len(raw); i++ {
			if raw[i] < 0x20 {
				return textControl
			}
		}
		if utf8.ValidString(raw) {
			return textPlain
		}
		return textInvalid
	}
	base := "abcdefghijklmnopqrstuvwxyz012345"
	for n := 0; n <= len(base); n++ {
		for at := 0; at < max(n, 1); at++ {
			for _, c := range []string{"\x00", "\x1f", "\n", " ", "\x7f", "é", "\xff", "\x80", "日"} {
				raw := base[:at] + c + base[at:n]
				if got, want := plainText(raw), byteLoop(raw); got != want {
					t.Errorf("plainText(%q) = %d, want %d", raw, got, want)
				}
			}
		}
	}
}
