package vector

import "encoding/json"

// DecodeMetadata reads the stored JSON of a record's Meta.Metadata: nil for
// no bytes, an empty object or bytes that are not a JSON object, so that a
// filter finds every key missing, as it does for a record without metadata.
func DecodeMetadata(b []byte) map[string]any {
	if len(b) == 0 {
		return nil
	}
	var md map[string]any
	if json.Unmarshal(b, &md) != nil || len(md) == 0 {
		return nil
	}
	return md
}
