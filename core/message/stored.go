package message

import (
	"bytes"
	"encoding/json"
	"strings"
)

// MarshalStored encodes content as stores keep it: format 2, parts,
// metadata, provider metadata and unknown fields, without the v4 mirrors
// ("content", "toolInvocations", "reasoning", "experimental_attachments")
// that MarshalJSON derives from the parts. Each text is then stored once;
// UnmarshalJSON reads both this shape and rows written with the mirrors, and
// MarshalJSON derives the mirrors again for clients that read them. A mirror
// that differs from the parts is not derived: UnmarshalJSON keeps it in
// Extra, so it is stored verbatim.
//
// Content that is one plain text part and nothing else, most messages, is
// stored as that text's JSON string: the object around it
// ({"format":2,"parts":[{"text":…,"type":"text"}]}) was 45 bytes of every
// such row. UnmarshalJSON has always read a string as one text part (the
// content of a format 1 message), so binaries that predate the short form
// read it too.
func MarshalStored(c Content) ([]byte, error) {
	return AppendStored(nil, c)
}

// AppendStored appends MarshalStored's bytes to dst. Text-only content (most
// messages) is written directly, without reflection or a copy.
func AppendStored(dst []byte, c Content) ([]byte, error) {
	if c.isStoredText() {
		if len(c.Parts) == 1 {
			return appendJSONString(dst, c.Parts[0].Text), nil
		}
		return appendStoredText(dst, c.Parts), nil
	}
	b, err := json.Marshal(c.storedFields())
	return append(dst, b...), err
}

// UnmarshalStored decodes content as a store keeps it (MarshalStored's
// bytes, a row with the v4 mirrors, or one formatted by a jsonb column, as
// PostgreSQL rows written before its migration 0004 are). The common
// text-only shape is decoded in one pass whatever its white space; anything
// else is compacted first, so that raw fields (tool arguments, metadata)
// come back without the added spaces. Stores that read the content as a
// string pass it as one: the texts decoded share its memory, with no copy.
func UnmarshalStored[T string | []byte](stored T, c *Content) error {
	if c.decodeTextOnly(strings.TrimSpace(string(stored))) {
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(stored)); err != nil {
		return err
	}
	return c.UnmarshalJSON(buf.Bytes())
}

// isStoredText reports whether c is text parts only, stored as
// {"format":2,"parts":[{"text":...,"type":"text"},...]} (the same bytes as
// storedFields gives, keys in the same sorted order).
func (c Content) isStoredText() bool {
	if len(c.Extra) > 0 || len(c.Metadata) > 0 || len(c.ProviderMetadata) > 0 || len(c.Parts) == 0 {
		return false
	}
	for i := range c.Parts {
		p := &c.Parts[i]
		if p.Type != PartText || len(p.Extra) > 0 || len(p.ProviderMetadata) > 0 {
			return false
		}
	}
	return true
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

// toolPartKey starts the key a stored tool-invocation part holds its call
// under ("toolInvocation") and the v4 mirror of older rows ("toolInvocations").
const toolPartKey = `"toolInvocation`

// MayHoldToolParts reports whether stored content (as MarshalStored wrote
// it, or an older row) may hold a tool invocation, without decoding it: a
// false answer is certain, a true one may be a text quoting the key.
func MayHoldToolParts[T string | []byte](stored T) bool {
	if isStoredString(stored) {
		return false
	}
	switch s := any(stored).(type) {
	case string:
		return strings.Contains(s, toolPartKey)
	case []byte:
		return bytes.Contains(s, []byte(toolPartKey))
	}
	return true
}

// isStoredString reports whether stored content is a JSON string: one text
// part (see MarshalStored).
func isStoredString[T string | []byte](stored T) bool {
	i := 0
	for i < len(stored) && (stored[i] == ' ' || stored[i] == '\t' || stored[i] == '\r' || stored[i] == '\n') {
		i++
	}
	return i < len(stored) && stored[i] == '"'
}

// StoredToolCallIDs reads only the tool-call ids of stored content (what
// Message.ToolCallIDs returns once it is decoded), skipping the rest.
func StoredToolCallIDs[T string | []byte](stored T) ([]string, error) {
	if !MayHoldToolParts(stored) {
		return nil, nil
	}
	type call struct {
		ToolCallID string `json:"toolCallId"`
	}
	var c struct {
		Parts []*struct {
			ToolInvocation *call `json:"toolInvocation"`
		} `json:"parts"`
		Legacy []call `json:"toolInvocations"` // read only without parts, as UnmarshalJSON does
	}
	if err := json.Unmarshal([]byte(stored), &c); err != nil {
		return nil, err
	}
	var ids []string
	for _, p := range c.Parts {
		if p != nil && p.ToolInvocation != nil && p.ToolInvocation.ToolCallID != "" {
			ids = append(ids, p.ToolInvocation.ToolCallID)
		}
	}
	if len(c.Parts) == 0 {
		for _, l := range c.Legacy {
			if l.ToolCallID != "" {
				ids = append(ids, l.ToolCallID)
			}
		}
	}
	return ids, nil
}
