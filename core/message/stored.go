package message

import "encoding/json"

// MarshalStored encodes content as stores keep it: format 2, parts,
// metadata, provider metadata and unknown fields, without the v4 mirrors
// ("content", "toolInvocations", "reasoning", "experimental_attachments")
// that MarshalJSON derives from the parts. Each text is then stored once;
// UnmarshalJSON reads both this shape and rows written with the mirrors, and
// MarshalJSON derives the mirrors again for clients that read them. A mirror
// that differs from the parts is not derived: UnmarshalJSON keeps it in
// Extra, so it is stored verbatim.
func MarshalStored(c Content) ([]byte, error) {
	return json.Marshal(c.storedFields())
}

// storedFields is the content's own fields, keyed as in format 2.
func (c Content) storedFields() map[string]any {
	m := make(map[string]any, len(c.Extra)+8)
	for k, v := range c.Extra {
		m[k] = v
	}
	m["format"] = 2
	parts := c.Parts
	if parts == nil {
		parts = []Part{}
	}
	m["parts"] = parts
	if len(c.Metadata) > 0 {
		m["metadata"] = c.Metadata
	}
	if len(c.ProviderMetadata) > 0 {
		m["providerMetadata"] = c.ProviderMetadata
	}
	return m
}
