package message

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// MarshalJSON encodes the part in the format-2 shape, unknown fields included.
func (p Part) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(p.Extra)+4)
	for k, v := range p.Extra {
		m[k] = v
	}
	m["type"] = p.Type
	switch p.Type {
	case PartText:
		m["text"] = p.Text
	case PartReasoning:
		m["reasoning"] = p.Reasoning
		details := p.Details
		if details == nil {
			details = []ReasoningDetail{}
		}
		m["details"] = details
	case PartToolInvocation:
		if p.ToolInvocation != nil {
			m["toolInvocation"] = p.ToolInvocation
		}
	case PartFile:
		m["data"] = p.Data
		m["mimeType"] = p.MimeType
		if p.Filename != "" {
			m["filename"] = p.Filename
		}
	case PartSource:
		if p.Source != nil {
			m["source"] = p.Source
		}
	}
	if len(p.ProviderMetadata) > 0 {
		m["providerMetadata"] = p.ProviderMetadata
	}
	return json.Marshal(m)
}

// knownPartFields lists, per part type, the fields decoded into typed fields.
var knownPartFields = map[string][]string{
	PartText:           {"text"},
	PartReasoning:      {"reasoning", "details"},
	PartToolInvocation: {"toolInvocation"},
	PartFile:           {"data", "mimeType", "filename"},
	PartSource:         {"source"},
}

// UnmarshalJSON decodes a part; a known field of the wrong shape is an error.
func (p *Part) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("part: %w", err)
	}
	*p = Part{}
	if err := decodeField(raw, "type", &p.Type); err != nil {
		return err
	}
	if p.Type == "" {
		return fmt.Errorf("part: missing type")
	}
	delete(raw, "type")
	targets := map[string]any{
		"text": &p.Text, "reasoning": &p.Reasoning, "details": &p.Details,
		"toolInvocation": &p.ToolInvocation, "data": &p.Data, "mimeType": &p.MimeType,
		"filename": &p.Filename, "source": &p.Source,
	}
	for _, name := range knownPartFields[p.Type] {
		if err := decodeField(raw, name, targets[name]); err != nil {
			return err
		}
		delete(raw, name)
	}
	if v, ok := raw["providerMetadata"]; ok {
		p.ProviderMetadata = append(json.RawMessage(nil), v...)
		delete(raw, "providerMetadata")
	}
	if p.Type == PartToolInvocation {
		if p.ToolInvocation == nil {
			return fmt.Errorf("part: tool-invocation without toolInvocation")
		}
		if p.ToolInvocation.ToolCallID == "" {
			return fmt.Errorf("part: tool-invocation without toolCallId")
		}
	}
	if len(raw) > 0 {
		p.Extra = raw
	}
	return nil
}

func decodeField(raw map[string]json.RawMessage, name string, dst any) error {
	v, ok := raw[name]
	if !ok || bytes.Equal(v, []byte("null")) {
		return nil
	}
	if err := json.Unmarshal(v, dst); err != nil {
		return fmt.Errorf("part field %q: %w", name, err)
	}
	return nil
}

type attachment struct {
	URL         string `json:"url"`
	ContentType string `json:"contentType,omitempty"`
	Name        string `json:"name,omitempty"`
}

// MarshalJSON encodes format-2 content and derives the v4 mirrors from Parts.
func (c Content) MarshalJSON() ([]byte, error) {
	m := c.storedFields()
	msg := Message{Content: c}
	if _, kept := c.Extra["content"]; !kept {
		if text := msg.Text(); text != "" {
			m["content"] = text
		}
	}
	var tools []*ToolInvocation
	var reasoning []string
	var files []attachment
	for _, p := range c.Parts {
		switch {
		case p.Type == PartToolInvocation && p.ToolInvocation != nil:
			tools = append(tools, p.ToolInvocation)
		case p.Type == PartReasoning && p.Reasoning != "":
			reasoning = append(reasoning, p.Reasoning)
		case p.Type == PartFile:
			files = append(files, attachment{URL: p.Data, ContentType: p.MimeType, Name: p.Filename})
		}
	}
	if len(tools) > 0 {
		m["toolInvocations"] = tools
	}
	if len(reasoning) > 0 {
		r := reasoning[0]
		for _, s := range reasoning[1:] {
			r += "\n" + s
		}
		m["reasoning"] = r
	}
	if len(files) > 0 {
		m["experimental_attachments"] = files
	}
	return json.Marshal(m)
}

// UnmarshalJSON decodes format-2 content. Legacy shapes are accepted: a plain
// string, an array of v1 content parts, or an object with only the v4 mirrors.
func (c *Content) UnmarshalJSON(b []byte) error {
	*c = Content{Format: 2}
	b = bytes.TrimSpace(b)
	if len(b) == 0 || bytes.Equal(b, []byte("null")) {
		return nil
	}
	if c.decodeTextOnly(string(b)) {
		return nil
	}
	switch b[0] {
	case '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		c.Parts = []Part{TextPart(s)}
		return nil
	case '[':
		return c.decodeV1Parts(b)
	}
	return c.decodeObject(b)
}

// decodeObject decodes a content object of any shape.
func (c *Content) decodeObject(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("content: %w", err)
	}
	var legacyText string
	var legacyTools []ToolInvocation
	var legacyReasoning string
	if err := c.decodeParts(raw["parts"]); err != nil {
		return fmt.Errorf("content: %w", err)
	}
	delete(raw, "parts")
	fields := map[string]any{
		"metadata": &c.Metadata, "content": &legacyText,
		"toolInvocations": &legacyTools, "reasoning": &legacyReasoning,
	}
	for name, dst := range fields {
		if err := decodeField(raw, name, dst); err != nil {
			return fmt.Errorf("content: %w", err)
		}
		delete(raw, name)
	}
	if v, ok := raw["providerMetadata"]; ok {
		c.ProviderMetadata = append(json.RawMessage(nil), v...)
	}
	delete(raw, "providerMetadata")
	delete(raw, "format")
	delete(raw, "experimental_attachments")
	if len(c.Parts) > 0 && legacyText != "" {
		// A mirror that differs from the parts (rows written by other clients,
		// e.g. stringified JSON) is kept verbatim rather than re-derived.
		if msg := (Message{Content: *c}); msg.Text() != legacyText {
			raw["content"], _ = json.Marshal(legacyText)
		}
	}
	if len(c.Parts) == 0 {
		if legacyReasoning != "" {
			c.Parts = append(c.Parts, Part{Type: PartReasoning, Reasoning: legacyReasoning})
		}
		if legacyText != "" {
			c.Parts = append(c.Parts, TextPart(legacyText))
		}
		for i := range legacyTools {
			ti := legacyTools[i]
			c.Parts = append(c.Parts, Part{Type: PartToolInvocation, ToolInvocation: &ti})
		}
	}
	if len(raw) > 0 {
		c.Extra = raw
	}
	return nil
}

// decodeParts decodes the parts array. A null entry (written by other
// clients) carries nothing: it is skipped and reported in Skipped, so that
// the row stays readable; unknown part types are kept whole (Part.Extra).
func (c *Content) decodeParts(b json.RawMessage) error {
	if len(b) == 0 || bytes.Equal(b, []byte("null")) {
		return nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(b, &items); err != nil {
		return fmt.Errorf("part field %q: %w", "parts", err)
	}
	c.Parts = make([]Part, 0, len(items))
	for i, it := range items {
		if bytes.Equal(bytes.TrimSpace(it), []byte("null")) {
			c.Skipped = append(c.Skipped, fmt.Sprintf("parts[%d]: null", i))
			continue
		}
		var p Part
		if err := json.Unmarshal(it, &p); err != nil {
			return fmt.Errorf("part field %q: %w", "parts", err)
		}
		c.Parts = append(c.Parts, p)
	}
	return nil
}

// decodeV1Parts reads the legacy v1 array content (AI SDK CoreMessage parts).
func (c *Content) decodeV1Parts(b []byte) error {
	var items []struct {
		Type       string          `json:"type"`
		Text       string          `json:"text"`
		ToolCallID string          `json:"toolCallId"`
		ToolName   string          `json:"toolName"`
		Args       json.RawMessage `json:"args"`
		Result     json.RawMessage `json:"result"`
		IsError    bool            `json:"isError"`
	}
	if err := json.Unmarshal(b, &items); err != nil {
		return fmt.Errorf("content: %w", err)
	}
	for _, it := range items {
		switch it.Type {
		case "text":
			c.Parts = append(c.Parts, TextPart(it.Text))
		case "tool-call":
			c.Parts = append(c.Parts, Part{Type: PartToolInvocation, ToolInvocation: &ToolInvocation{
				State: ToolStateCall, ToolCallID: it.ToolCallID, ToolName: it.ToolName, Args: it.Args}})
		case "tool-result":
			c.Parts = append(c.Parts, Part{Type: PartToolInvocation, ToolInvocation: &ToolInvocation{
				State: ToolStateResult, ToolCallID: it.ToolCallID, ToolName: it.ToolName, Result: it.Result, IsError: it.IsError}})
		}
	}
	return nil
}

// EncodedSizeBound is an upper bound of len(json.Marshal(c)), and so of
// len(MarshalStored(c)) (its fields without the mirrors), or false when
// c has metadata (arbitrary values; measured by encoding). JSON escaping
// turns one input byte into at most 6 ("\u003c"), every field costs less
// than 64 bytes of name and punctuation, and the v4 mirrors MarshalJSON
// derives repeat each part's content at most once (hence twice the parts).
func (c *Content) EncodedSizeBound() (int, bool) {
	if len(c.Metadata) > 0 {
		return 0, false
	}
	const field, esc = 64, 6
	parts := 0
	for i := range c.Parts {
		p := &c.Parts[i]
		n := len(p.Type) + len(p.Text) + len(p.Reasoning) + len(p.Data) + len(p.MimeType) + len(p.Filename) + len(p.ProviderMetadata)
		for k, v := range p.Extra {
			n += len(k) + len(v)
		}
		for _, d := range p.Details {
			n += len(d.Type) + len(d.Text) + len(d.Data) + len(d.Signature) + 4*field/esc
		}
		if ti := p.ToolInvocation; ti != nil {
			n += len(ti.State) + len(ti.ToolCallID) + len(ti.ToolName) + len(ti.Args) + len(ti.Result) + len(ti.ErrorText) + 8*field/esc + 20
		}
		if src := p.Source; src != nil {
			n += len(src.SourceType) + len(src.ID) + len(src.URL) + len(src.Title) + len(src.ProviderMetadata) + 5*field/esc
		}
		parts += esc*n + (8+len(p.Extra))*field
	}
	n := len(c.ProviderMetadata)
	for k, v := range c.Extra {
		n += len(k) + len(v) + field/esc
	}
	return 2*parts + esc*n + 8*field, true
}
