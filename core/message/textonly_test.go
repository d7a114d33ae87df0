package message

import (
	"reflect"
	"testing"
)

// TestDecodeTextOnly: the one-pass decoding of text-only content gives what
// the general decoding gives, and declines every other shape (which the
// general decoding then handles, or refuses).
func TestDecodeTextOnly(t *testing.T) {
	taken := []string{
		`{"format":2,"parts":[{"type":"text","text":"hi"}]}`,
		`{"content":"a\nb","format":2,"parts":[{"text":"a","type":"text"},{"text":"b","type":"text"}]}`,
		` { "parts" : [ { "type" : "text" } ] , "format" : 2 } `,
		`{"parts":[{"type":"text","text":"esc \"q\" \u00e9 \ud83d\ude00 \\ /"}],"content":""}`,
		`{"parts":[{"type":"text","text":"é ü 日本"}],"content":"é ü 日本"}`,
		`{"parts":[{"type":"text","text":"bad ` + "\xff" + ` utf8"}]}`,
	}
	for _, in := range taken {
		var fast, general Content
		if !fast.decodeTextOnly([]byte(in)) {
			t.Errorf("declined %s", in)
			continue
		}
		general = Content{Format: 2}
		if err := general.decodeObject([]byte(in)); err != nil {
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
	}
	for _, in := range declined {
		var c Content
		if c.decodeTextOnly([]byte(in)) {
			t.Errorf("took %s as %#v", in, c)
		}
	}
}
