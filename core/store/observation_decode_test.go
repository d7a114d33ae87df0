package store

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

// A RecordDecoder gives what a fresh decode gives, for a text seen before
// too; what it returns is the caller's to change; a changed text is decoded
// anew; it remembers a bounded number of keys.
func TestRecordDecoder(t *testing.T) {
	var d RecordDecoder
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	buf := ObservationBuffer{Chunks: []BufferedChunk{{Observations: "- a", Tokens: 2, MessageTokens: 9, CreatedAt: at,
		Messages: []ObservedMessage{{ID: "m1", CreatedAt: at}, {ID: "m2", CreatedAt: at}}}}}
	text := EncodeObservationBuffer(buf)
	for i := range 2 {
		got, err := d.Buffer("thread:t", text)
		if err != nil || !reflect.DeepEqual(got, buf) {
			t.Fatalf("read %d: %+v, %v", i, got, err)
		}
		got.Chunks[0].Messages[0].ID = "changed by the caller"
		ids, err := d.IDs("thread:t", `["m0","m1"]`)
		if err != nil || !reflect.DeepEqual(ids, []string{"m0", "m1"}) {
			t.Fatalf("read %d: ids %v, %v", i, ids, err)
		}
		ids[0] = "changed by the caller"
	}
	buf.Chunks[0].Observations = "- b"
	if got, err := d.Buffer("thread:t", EncodeObservationBuffer(buf)); err != nil || got.Chunks[0].Observations != "- b" {
		t.Fatalf("changed text: %+v, %v", got, err)
	}
	if ids, err := d.IDs("thread:t", `[]`); err != nil || ids == nil || len(ids) != 0 {
		t.Fatalf("empty ids: %#v, %v", ids, err)
	}
	if _, err := d.IDs("thread:t", `["m0"`); err == nil {
		t.Fatal("a truncated id list decoded")
	}
	if got, err := d.Buffer("thread:t", ""); err != nil || !got.Empty() {
		t.Fatalf("empty buffer text: %+v, %v", got, err)
	}
	for i := range 2 * decoderKeys {
		if _, err := d.IDs(fmt.Sprint("thread:", i), `["x"]`); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(d.last); n > decoderKeys {
		t.Fatalf("%d keys remembered, at most %d", n, decoderKeys)
	}
}
