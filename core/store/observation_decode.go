package store

import (
	"encoding/json"
	"slices"
	"sync"
)

// RecordDecoder decodes the JSON columns of stored observation records (the
// buffer, and the observed ids where a store keeps them as JSON) and
// remembers, per record key, the last texts and what they decoded to. A turn
// with observational memory reads its record twice, and decoding the JSON
// was most of such a read; an unchanged text is not decoded again. The zero
// value is ready; it is safe for concurrent use.
type RecordDecoder struct {
	mu   sync.Mutex
	last map[string]*decodedRecord
}

// decoderKeys bounds the keys a RecordDecoder remembers.
const decoderKeys = 256

type decodedRecord struct {
	idsText, bufText string
	ids              []string
	buf              ObservationBuffer
}

// IDs decodes the observed ids of key's record from their JSON array.
func (d *RecordDecoder) IDs(key, text string) ([]string, error) {
	d.mu.Lock()
	if e := d.last[key]; e != nil && e.ids != nil && e.idsText == text {
		ids := slices.Clone(e.ids)
		d.mu.Unlock()
		return ids, nil
	}
	d.mu.Unlock()
	var ids []string
	if err := json.Unmarshal([]byte(text), &ids); err != nil {
		return nil, err
	}
	if ids == nil {
		ids = []string{}
	}
	d.remember(key, func(e *decodedRecord) { e.idsText, e.ids = text, slices.Clone(ids) })
	return ids, nil
}

// Buffer decodes the buffer of key's record (see DecodeObservationBuffer).
func (d *RecordDecoder) Buffer(key, text string) (ObservationBuffer, error) {
	if text == "" {
		return ObservationBuffer{}, nil
	}
	d.mu.Lock()
	if e := d.last[key]; e != nil && e.bufText == text {
		buf := e.buf.Clone()
		d.mu.Unlock()
		return buf, nil
	}
	d.mu.Unlock()
	buf, err := DecodeObservationBuffer(text)
	if err != nil {
		return buf, err
	}
	d.remember(key, func(e *decodedRecord) { e.bufText, e.buf = text, buf.Clone() })
	return buf, nil
}

func (d *RecordDecoder) remember(key string, set func(*decodedRecord)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	e := d.last[key]
	if e == nil {
		if d.last == nil {
			d.last = map[string]*decodedRecord{}
		}
		if len(d.last) >= decoderKeys {
			for k := range d.last { // any one: the map's order is random
				delete(d.last, k)
				break
			}
		}
		e = &decodedRecord{}
		d.last[key] = e
	}
	set(e)
}
