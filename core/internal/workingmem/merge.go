package workingmem

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// DecodeJSON parses exactly one JSON value, keeping numbers exact so that a
// merge does not round the numbers it does not touch.
func DecodeJSON(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

// encodeJSON encodes v compactly without HTML escaping (the stored value is
// data; escaping for the prompt happens when it is rendered).
func encodeJSON(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// merge deep-merges patch into base without modifying either: objects
// recurse, arrays and primitives replace, null deletes a key (also inside
// objects that are new to base).
func merge(base, patch map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(patch))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range patch {
		switch pv := v.(type) {
		case nil:
			delete(out, k)
		case map[string]any:
			bv, _ := out[k].(map[string]any)
			out[k] = merge(bv, pv)
		default:
			out[k] = v
		}
	}
	return out
}
