package einomem

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/agentmem/agentmem/core"
)

// MetadataKey is the content.metadata key under which a converted message
// keeps the fields of its schema.Message that format 2 cannot express (Name,
// Extra, ResponseMeta, tool-call index/type/extra, multi-content layout, the
// tool role). The value is plain JSON, so it survives storage unchanged.
const MetadataKey = "eino"

// ExtraIDKey is the schema.Message.Extra key that carries the id of a stored
// message. ToEino sets it on every message that has an id and FromEino turns
// it back into core.Message.ID, so a message loaded from memory and passed
// back as input is recognised as already stored.
const ExtraIDKey = "agentmem_id"

// unknownToolName names a tool result whose call is unknown and whose
// schema.Message has no ToolName (format 2 requires a tool name).
const unknownToolName = "unknown_tool"

// msgMeta is the content.metadata[MetadataKey] value.
type msgMeta struct {
	// Role is "tool" for a schema.Tool message (stored as an assistant
	// message holding one tool-invocation part in state "result").
	Role         string               `json:"role,omitempty"`
	Name         string               `json:"name,omitempty"`
	Extra        map[string]any       `json:"extra,omitempty"`
	ResponseMeta *schema.ResponseMeta `json:"responseMeta,omitempty"`
	// Layout lists the content pieces in order when the message has
	// multi-content parts; without it, the first reasoning part is
	// ReasoningContent and the first text part is Content.
	Layout []layoutEntry `json:"layout,omitempty"`
	// Calls holds the tool-call fields without a format-2 equivalent, by id.
	Calls map[string]callMeta `json:"calls,omitempty"`
	// Tool holds tool-message fields the result part does not reproduce.
	Tool *toolMeta `json:"tool,omitempty"`
}

// layoutEntry describes one content piece of a schema.Message. Entries that
// are not Inline consume the next non-tool core part.
type layoutEntry struct {
	// F is the source field: "reasoning" (ReasoningContent), "content"
	// (Content), "multi" (MultiContent), "input" (UserInputMultiContent) or
	// "output" (AssistantGenMultiContent).
	F string `json:"f"`
	// Part is the multi-content part with the data moved into the core part
	// cleared (text, url, base64 data); for Inline entries, the whole part.
	Part json.RawMessage `json:"part,omitempty"`
	// Data names the field whose value is the core part's Data: "url",
	// "base64" or "uri" ("" when none was set).
	Data   string `json:"data,omitempty"`
	Inline bool   `json:"inline,omitempty"`
}

// callMeta keeps the schema.ToolCall fields format 2 has no place for.
type callMeta struct {
	Index *int           `json:"index,omitempty"`
	Type  *string        `json:"type,omitempty"` // set when not "function"
	Extra map[string]any `json:"extra,omitempty"`
	// Arguments is the original argument text when the part's args (valid,
	// compact JSON) do not reproduce it byte for byte.
	Arguments *string `json:"arguments,omitempty"`
	NoID      bool    `json:"noId,omitempty"`   // the call had no id; one was generated
	NoName    bool    `json:"noName,omitempty"` // the call had no name; a placeholder is stored
}

// toolMeta keeps tool-message fields the result part does not reproduce.
type toolMeta struct {
	ToolName *string `json:"toolName,omitempty"` // original ToolName when it differs
	NoID     bool    `json:"noId,omitempty"`
}

// callInfo is what a tool result needs from its call.
type callInfo struct {
	name string
	args json.RawMessage
}

// FromEino converts eino messages to format-2 messages, one per schema.Message.
// A tool message becomes an assistant message with one tool-invocation part in
// state "result"; its tool name and arguments are taken from the earlier
// assistant message that made the call (matched by id). Fields without a
// format-2 equivalent go to content.metadata[MetadataKey], so ToEino restores
// the messages exactly (Extra values as JSON would decode them; nil and empty
// maps and slices are not told apart; MessageOutputPart.StreamingMeta, which
// eino never serialises, is dropped).
func FromEino(msgs []*schema.Message) ([]core.Message, error) {
	return fromEino(msgs, nil)
}

// MessageFromEino converts one eino message. A tool message's name comes from
// its ToolName (its arguments are unknown); use FromEino for conversations.
func MessageFromEino(msg *schema.Message) (core.Message, error) {
	out, err := fromEino([]*schema.Message{msg}, nil)
	if err != nil {
		return core.Message{}, err
	}
	return out[0], nil
}

// fromEino converts msgs; known holds tool calls made before msgs.
func fromEino(msgs []*schema.Message, known map[string]callInfo) ([]core.Message, error) {
	calls := make(map[string]callInfo, len(known))
	for id, c := range known {
		calls[id] = c
	}
	out := make([]core.Message, 0, len(msgs))
	var lastCalls []string // generated ids of the last assistant's id-less calls
	for i, msg := range msgs {
		if msg == nil {
			return nil, fmt.Errorf("einomem: message %d is nil", i)
		}
		cm, err := messageFromEino(msg, calls, &lastCalls, i)
		if err != nil {
			return nil, fmt.Errorf("einomem: message %d: %w", i, err)
		}
		out = append(out, cm)
	}
	return out, nil
}

func messageFromEino(msg *schema.Message, calls map[string]callInfo, lastCalls *[]string, pos int) (core.Message, error) {
	var out core.Message
	var meta msgMeta
	switch msg.Role {
	case schema.User:
		out.Role = core.RoleUser
	case schema.Assistant:
		out.Role = core.RoleAssistant
	case schema.System:
		out.Role = core.RoleSystem
	case schema.Tool:
		out.Role = core.RoleAssistant
		meta.Role = string(schema.Tool)
	default:
		return out, fmt.Errorf("unknown role %q", msg.Role)
	}
	out.Content.Format = 2
	meta.Name = msg.Name
	meta.ResponseMeta = msg.ResponseMeta
	if len(msg.Extra) > 0 {
		extra := make(map[string]any, len(msg.Extra))
		for k, v := range msg.Extra {
			if id, ok := v.(string); ok && k == ExtraIDKey && id != "" {
				out.ID = id
				continue
			}
			extra[k] = v
		}
		meta.Extra = normalizeMap(extra)
	}

	multi := len(msg.MultiContent) > 0 || len(msg.UserInputMultiContent) > 0 || len(msg.AssistantGenMultiContent) > 0
	var layout []layoutEntry
	if msg.ReasoningContent != "" {
		out.Content.Parts = append(out.Content.Parts, core.Part{Type: core.PartReasoning, Reasoning: msg.ReasoningContent})
		layout = append(layout, layoutEntry{F: "reasoning"})
	}
	if msg.Content != "" && msg.Role != schema.Tool {
		out.Content.Parts = append(out.Content.Parts, core.TextPart(msg.Content))
		layout = append(layout, layoutEntry{F: "content"})
	}
	for _, p := range msg.MultiContent {
		part, e, err := legacyPartToCore(p)
		if err != nil {
			return out, err
		}
		layout = append(layout, e)
		if part != nil {
			out.Content.Parts = append(out.Content.Parts, *part)
		}
	}
	for _, p := range msg.UserInputMultiContent {
		part, e, err := inputPartToCore(p)
		if err != nil {
			return out, err
		}
		layout = append(layout, e)
		if part != nil {
			out.Content.Parts = append(out.Content.Parts, *part)
		}
	}
	for _, p := range msg.AssistantGenMultiContent {
		part, e, err := outputPartToCore(p)
		if err != nil {
			return out, err
		}
		layout = append(layout, e)
		if part != nil {
			out.Content.Parts = append(out.Content.Parts, *part)
		}
	}
	if multi {
		meta.Layout = layout
	}

	if len(msg.ToolCalls) > 0 {
		*lastCalls = (*lastCalls)[:0]
	}
	for i, tc := range msg.ToolCalls {
		var cm callMeta
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("agentmem_call_%d_%d", pos, i)
			cm.NoID = true
			*lastCalls = append(*lastCalls, id)
		}
		cm.Index = tc.Index
		if tc.Type != "function" {
			t := tc.Type
			cm.Type = &t
		}
		cm.Extra = normalizeMap(tc.Extra)
		args, orig := argsToJSON(tc.Function.Arguments)
		cm.Arguments = orig
		name := tc.Function.Name
		if name == "" {
			name, cm.NoName = unknownToolName, true
		}
		if !cm.empty() {
			if meta.Calls == nil {
				meta.Calls = map[string]callMeta{}
			}
			meta.Calls[id] = cm
		}
		calls[id] = callInfo{name: tc.Function.Name, args: args}
		out.Content.Parts = append(out.Content.Parts, core.Part{Type: core.PartToolInvocation, ToolInvocation: &core.ToolInvocation{
			State: core.ToolStateCall, ToolCallID: id, ToolName: name, Args: args}})
	}

	if msg.Role == schema.Tool {
		id := msg.ToolCallID
		var tm toolMeta
		if id == "" {
			tm.NoID = true
			if len(*lastCalls) > 0 {
				id = (*lastCalls)[0]
				*lastCalls = (*lastCalls)[1:]
			} else {
				id = fmt.Sprintf("agentmem_result_%d", pos)
			}
		}
		call, found := calls[id]
		name := msg.ToolName
		if name == "" && found {
			name = call.name
		}
		if name == "" {
			name = unknownToolName
		}
		if name != msg.ToolName {
			orig := msg.ToolName
			tm.ToolName = &orig
		}
		if tm != (toolMeta{}) {
			meta.Tool = &tm
		}
		out.Content.Parts = append(out.Content.Parts, core.Part{Type: core.PartToolInvocation, ToolInvocation: &core.ToolInvocation{
			State: core.ToolStateResult, ToolCallID: id, ToolName: name, Args: cloneRaw(call.args), Result: resultToJSON(msg.Content)}})
	}

	if m := meta.toMap(); m != nil {
		out.Content.Metadata = map[string]any{MetadataKey: m}
	}
	return out, nil
}

func (c *callMeta) empty() bool {
	return c.Index == nil && c.Type == nil && len(c.Extra) == 0 && c.Arguments == nil && !c.NoID && !c.NoName
}

// empty reports whether meta carries nothing.
func (m *msgMeta) empty() bool {
	return m.Role == "" && m.Name == "" && len(m.Extra) == 0 && m.ResponseMeta == nil &&
		len(m.Layout) == 0 && len(m.Calls) == 0 && m.Tool == nil
}

// toMap returns meta as plain JSON values, or nil when it is empty.
func (m *msgMeta) toMap() map[string]any {
	if m.empty() {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil
	}
	return out
}

// readMeta decodes content.metadata[MetadataKey]; nil when absent or malformed.
func readMeta(c *core.Content) *msgMeta {
	v, ok := c.Metadata[MetadataKey]
	if !ok {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m msgMeta
	if err := json.Unmarshal(b, &m); err != nil {
		return nil
	}
	return &m
}

// normalizeMap returns m with every value as encoding/json would decode it;
// values that cannot be encoded are dropped. nil for an empty map.
func normalizeMap(m map[string]any) map[string]any {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		b, err := json.Marshal(v)
		if err != nil {
			continue
		}
		var n any
		if err := json.Unmarshal(b, &n); err != nil {
			continue
		}
		out[k] = n
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// canonicalJSON is how a stored json.RawMessage comes back: compact, with
// HTML characters escaped.
func canonicalJSON(s string) (string, bool) {
	if !json.Valid([]byte(s)) {
		return "", false
	}
	b, err := json.Marshal(json.RawMessage(s))
	if err != nil {
		return "", false
	}
	return string(b), true
}

// argsToJSON returns tool-call arguments as JSON, plus the original text when
// the JSON does not reproduce it (whitespace, escaping, invalid JSON).
func argsToJSON(s string) (json.RawMessage, *string) {
	if s == "" {
		return nil, nil
	}
	if c, ok := canonicalJSON(s); ok {
		if c == s {
			return json.RawMessage(s), nil
		}
		return json.RawMessage(c), &s
	}
	b, _ := json.Marshal(s)
	return b, &s
}

// argsText is the inverse of argsToJSON for parts without metadata.
func argsText(args json.RawMessage) string {
	if len(args) == 0 {
		return ""
	}
	return string(args)
}

// resultToJSON stores a tool message's content: a canonical JSON object or
// array as itself, anything else as a JSON string.
func resultToJSON(content string) json.RawMessage {
	if len(content) > 0 && (content[0] == '{' || content[0] == '[') {
		if c, ok := canonicalJSON(content); ok && c == content {
			return json.RawMessage(content)
		}
	}
	b, _ := json.Marshal(content)
	return b
}

// resultText is the tool-message content of a result part.
func resultText(ti *core.ToolInvocation) string {
	r := bytes.TrimSpace(ti.Result)
	if len(r) == 0 {
		return ti.ErrorText
	}
	if r[0] == '"' {
		var s string
		if json.Unmarshal(r, &s) == nil {
			return s
		}
	}
	return string(ti.Result)
}

func cloneRaw(r json.RawMessage) json.RawMessage {
	if r == nil {
		return nil
	}
	return append(json.RawMessage(nil), r...)
}

// ---- multi-content parts ----

func strPtr(s string) *string { return &s }

// moveCommon moves the URL or base64 data of c into a file part and clears it
// in c (keeping the pointer, so which one was set is remembered).
func moveCommon(c *schema.MessagePartCommon, kind string) (core.Part, string) {
	p := core.Part{Type: core.PartFile, MimeType: c.MIMEType}
	if p.MimeType == "" {
		p.MimeType = defaultMime(kind)
	}
	switch {
	case c.URL != nil:
		p.Data = *c.URL
		c.URL = strPtr("")
		return p, "url"
	case c.Base64Data != nil:
		p.Data = *c.Base64Data
		c.Base64Data = strPtr("")
		return p, "base64"
	}
	return p, ""
}

func restoreCommon(c *schema.MessagePartCommon, data, field string) {
	switch field {
	case "url":
		c.URL = strPtr(data)
	case "base64":
		c.Base64Data = strPtr(data)
	}
}

func defaultMime(kind string) string {
	switch kind {
	case "image":
		return "image/*"
	case "audio":
		return "audio/*"
	case "video":
		return "video/*"
	}
	return "application/octet-stream"
}

func entry(f string, part any, data string, inline bool) (layoutEntry, error) {
	b, err := json.Marshal(part)
	if err != nil {
		return layoutEntry{}, err
	}
	return layoutEntry{F: f, Part: b, Data: data, Inline: inline}, nil
}

func inputPartToCore(p schema.MessageInputPart) (*core.Part, layoutEntry, error) {
	sk := p
	sk.Extra = normalizeMap(p.Extra)
	var part *core.Part
	data := ""
	switch {
	case p.Type == schema.ChatMessagePartTypeText:
		t := core.TextPart(p.Text)
		part, sk.Text = &t, ""
	case p.Type == schema.ChatMessagePartTypeImageURL && p.Image != nil:
		img := *p.Image // moveCommon replaces pointers, never writes through them
		fp, d := moveCommon(&img.MessagePartCommon, "image")
		part, sk.Image, data = &fp, &img, d
	case p.Type == schema.ChatMessagePartTypeAudioURL && p.Audio != nil:
		a := *p.Audio
		fp, d := moveCommon(&a.MessagePartCommon, "audio")
		part, sk.Audio, data = &fp, &a, d
	case p.Type == schema.ChatMessagePartTypeVideoURL && p.Video != nil:
		v := *p.Video
		fp, d := moveCommon(&v.MessagePartCommon, "video")
		part, sk.Video, data = &fp, &v, d
	case p.Type == schema.ChatMessagePartTypeFileURL && p.File != nil:
		f := *p.File
		fp, d := moveCommon(&f.MessagePartCommon, "file")
		fp.Filename = f.Name
		part, sk.File, data = &fp, &f, d
	}
	e, err := entry("input", sk, data, part == nil)
	return part, e, err
}

func inputPartFromCore(e layoutEntry, cp *core.Part) (schema.MessageInputPart, error) {
	var p schema.MessageInputPart
	if err := json.Unmarshal(e.Part, &p); err != nil {
		return p, err
	}
	if cp == nil {
		return p, nil
	}
	switch {
	case p.Type == schema.ChatMessagePartTypeText:
		p.Text = cp.Text
	case p.Image != nil && p.Type == schema.ChatMessagePartTypeImageURL:
		restoreCommon(&p.Image.MessagePartCommon, cp.Data, e.Data)
	case p.Audio != nil && p.Type == schema.ChatMessagePartTypeAudioURL:
		restoreCommon(&p.Audio.MessagePartCommon, cp.Data, e.Data)
	case p.Video != nil && p.Type == schema.ChatMessagePartTypeVideoURL:
		restoreCommon(&p.Video.MessagePartCommon, cp.Data, e.Data)
	case p.File != nil && p.Type == schema.ChatMessagePartTypeFileURL:
		restoreCommon(&p.File.MessagePartCommon, cp.Data, e.Data)
	}
	return p, nil
}

func outputPartToCore(p schema.MessageOutputPart) (*core.Part, layoutEntry, error) {
	sk := p
	sk.StreamingMeta = nil
	sk.Extra = normalizeMap(p.Extra)
	var part *core.Part
	data := ""
	switch {
	case p.Type == schema.ChatMessagePartTypeText:
		t := core.TextPart(p.Text)
		part, sk.Text = &t, ""
	case p.Type == schema.ChatMessagePartTypeReasoning && p.Reasoning != nil:
		r := core.Part{Type: core.PartReasoning, Reasoning: p.Reasoning.Text}
		if p.Reasoning.Signature != "" {
			r.Details = []core.ReasoningDetail{{Type: "text", Text: p.Reasoning.Text, Signature: p.Reasoning.Signature}}
		}
		part, sk.Reasoning = &r, &schema.MessageOutputReasoning{}
	case p.Type == schema.ChatMessagePartTypeImageURL && p.Image != nil:
		img := *p.Image
		fp, d := moveCommon(&img.MessagePartCommon, "image")
		part, sk.Image, data = &fp, &img, d
	case p.Type == schema.ChatMessagePartTypeAudioURL && p.Audio != nil:
		a := *p.Audio
		fp, d := moveCommon(&a.MessagePartCommon, "audio")
		part, sk.Audio, data = &fp, &a, d
	case p.Type == schema.ChatMessagePartTypeVideoURL && p.Video != nil:
		v := *p.Video
		fp, d := moveCommon(&v.MessagePartCommon, "video")
		part, sk.Video, data = &fp, &v, d
	}
	e, err := entry("output", sk, data, part == nil)
	return part, e, err
}

func outputPartFromCore(e layoutEntry, cp *core.Part) (schema.MessageOutputPart, error) {
	var p schema.MessageOutputPart
	if err := json.Unmarshal(e.Part, &p); err != nil {
		return p, err
	}
	if cp == nil {
		return p, nil
	}
	switch {
	case p.Type == schema.ChatMessagePartTypeText:
		p.Text = cp.Text
	case p.Reasoning != nil && p.Type == schema.ChatMessagePartTypeReasoning:
		p.Reasoning.Text = cp.Reasoning
		if len(cp.Details) > 0 {
			p.Reasoning.Signature = cp.Details[0].Signature
		}
	case p.Image != nil && p.Type == schema.ChatMessagePartTypeImageURL:
		restoreCommon(&p.Image.MessagePartCommon, cp.Data, e.Data)
	case p.Audio != nil && p.Type == schema.ChatMessagePartTypeAudioURL:
		restoreCommon(&p.Audio.MessagePartCommon, cp.Data, e.Data)
	case p.Video != nil && p.Type == schema.ChatMessagePartTypeVideoURL:
		restoreCommon(&p.Video.MessagePartCommon, cp.Data, e.Data)
	}
	return p, nil
}

// legacyURL moves the URL (or, when empty, the URI) of a deprecated part.
func legacyURL(url, uri *string, mime, kind string) (core.Part, string) {
	p := core.Part{Type: core.PartFile, MimeType: mime}
	if p.MimeType == "" {
		p.MimeType = defaultMime(kind)
	}
	switch {
	case *url != "":
		p.Data, *url = *url, ""
		return p, "url"
	case *uri != "":
		p.Data, *uri = *uri, ""
		return p, "uri"
	}
	return p, ""
}

func restoreLegacy(url, uri *string, data, field string) {
	switch field {
	case "url":
		*url = data
	case "uri":
		*uri = data
	}
}

func legacyPartToCore(p schema.ChatMessagePart) (*core.Part, layoutEntry, error) {
	sk := p
	var part *core.Part
	data := ""
	switch {
	case p.Type == schema.ChatMessagePartTypeText:
		t := core.TextPart(p.Text)
		part, sk.Text = &t, ""
	case p.Type == schema.ChatMessagePartTypeImageURL && p.ImageURL != nil:
		u := *p.ImageURL
		u.Extra = normalizeMap(u.Extra)
		fp, d := legacyURL(&u.URL, &u.URI, u.MIMEType, "image")
		part, sk.ImageURL, data = &fp, &u, d
	case p.Type == schema.ChatMessagePartTypeAudioURL && p.AudioURL != nil:
		u := *p.AudioURL
		u.Extra = normalizeMap(u.Extra)
		fp, d := legacyURL(&u.URL, &u.URI, u.MIMEType, "audio")
		part, sk.AudioURL, data = &fp, &u, d
	case p.Type == schema.ChatMessagePartTypeVideoURL && p.VideoURL != nil:
		u := *p.VideoURL
		u.Extra = normalizeMap(u.Extra)
		fp, d := legacyURL(&u.URL, &u.URI, u.MIMEType, "video")
		part, sk.VideoURL, data = &fp, &u, d
	case p.Type == schema.ChatMessagePartTypeFileURL && p.FileURL != nil:
		u := *p.FileURL
		u.Extra = normalizeMap(u.Extra)
		fp, d := legacyURL(&u.URL, &u.URI, u.MIMEType, "file")
		fp.Filename = u.Name
		part, sk.FileURL, data = &fp, &u, d
	}
	e, err := entry("multi", sk, data, part == nil)
	return part, e, err
}

func legacyPartFromCore(e layoutEntry, cp *core.Part) (schema.ChatMessagePart, error) {
	var p schema.ChatMessagePart
	if err := json.Unmarshal(e.Part, &p); err != nil {
		return p, err
	}
	if cp == nil {
		return p, nil
	}
	switch {
	case p.Type == schema.ChatMessagePartTypeText:
		p.Text = cp.Text
	case p.ImageURL != nil && p.Type == schema.ChatMessagePartTypeImageURL:
		restoreLegacy(&p.ImageURL.URL, &p.ImageURL.URI, cp.Data, e.Data)
	case p.AudioURL != nil && p.Type == schema.ChatMessagePartTypeAudioURL:
		restoreLegacy(&p.AudioURL.URL, &p.AudioURL.URI, cp.Data, e.Data)
	case p.VideoURL != nil && p.Type == schema.ChatMessagePartTypeVideoURL:
		restoreLegacy(&p.VideoURL.URL, &p.VideoURL.URI, cp.Data, e.Data)
	case p.FileURL != nil && p.Type == schema.ChatMessagePartTypeFileURL:
		restoreLegacy(&p.FileURL.URL, &p.FileURL.URI, cp.Data, e.Data)
	}
	return p, nil
}

// ---- core → eino ----

// ToEino converts format-2 messages to eino messages for a model. Messages
// that came from FromEino are restored exactly. Other messages are mapped by
// role: text parts become Content (joined by "\n"), reasoning parts
// ReasoningContent, file parts multi-content parts, and a tool-invocation part
// in state "result" becomes a ToolCall of the assistant message followed by a
// schema.Tool message with its result. A tool result whose call is not earlier
// in msgs gets that call first, so every tool message follows its call. Signal
// messages become user messages; source and step-start parts are dropped. A
// message with an id carries it in Extra[ExtraIDKey].
func ToEino(msgs []core.Message) []*schema.Message {
	emitted := map[string]bool{}
	out := make([]*schema.Message, 0, len(msgs))
	for i := range msgs {
		out = append(out, messageToEino(&msgs[i], emitted, true)...)
	}
	return out
}

// MessageToEino converts one format-2 message. It returns one message, or
// more when the message holds tool results (the assistant message with the
// calls, then one tool message per result).
func MessageToEino(msg core.Message) []*schema.Message {
	return messageToEino(&msg, map[string]bool{}, false)
}

func messageToEino(m *core.Message, emitted map[string]bool, synthesize bool) []*schema.Message {
	meta := readMeta(&m.Content)
	if meta == nil {
		meta = &msgMeta{}
	}
	main := &schema.Message{Name: meta.Name}
	switch m.Role {
	case core.RoleUser, core.RoleSignal:
		main.Role = schema.User
	case core.RoleSystem:
		main.Role = schema.System
	default:
		main.Role = schema.Assistant
	}
	if meta.ResponseMeta != nil {
		rm := *meta.ResponseMeta
		main.ResponseMeta = &rm
	}
	if len(meta.Extra) > 0 || m.ID != "" {
		main.Extra = make(map[string]any, len(meta.Extra)+1)
		for k, v := range meta.Extra {
			main.Extra[k] = v
		}
		if m.ID != "" {
			main.Extra[ExtraIDKey] = m.ID
		}
	}

	var content []*core.Part
	var tools []*core.ToolInvocation
	for i := range m.Content.Parts {
		p := &m.Content.Parts[i]
		switch {
		case p.Type == core.PartToolInvocation && p.ToolInvocation != nil:
			tools = append(tools, p.ToolInvocation)
		case p.Type == core.PartText, p.Type == core.PartReasoning, p.Type == core.PartFile:
			content = append(content, p)
		}
	}
	if !applyLayout(main, meta.Layout, content) {
		defaultContent(main, content)
	}

	if meta.Role == string(schema.Tool) {
		var res *core.ToolInvocation
		for _, ti := range tools {
			if ti.State == core.ToolStateResult {
				res = ti
				break
			}
		}
		if res != nil {
			var out []*schema.Message
			if synthesize && !emitted[res.ToolCallID] {
				out = append(out, &schema.Message{Role: schema.Assistant, ToolCalls: []schema.ToolCall{callFromCore(res, nil)}})
			}
			emitted[res.ToolCallID] = true
			main.Role = schema.Tool
			main.ToolCallID = res.ToolCallID
			main.ToolName = res.ToolName
			if t := meta.Tool; t != nil {
				if t.NoID {
					main.ToolCallID = ""
				}
				if t.ToolName != nil {
					main.ToolName = *t.ToolName
				}
			}
			main.Content = resultText(res)
			return append(out, main)
		}
	}

	var results []*schema.Message
	for _, ti := range tools {
		var cm *callMeta
		if c, ok := meta.Calls[ti.ToolCallID]; ok {
			cm = &c
		}
		main.ToolCalls = append(main.ToolCalls, callFromCore(ti, cm))
		emitted[ti.ToolCallID] = true
		if ti.State == core.ToolStateResult {
			results = append(results, &schema.Message{Role: schema.Tool, ToolCallID: ti.ToolCallID, ToolName: ti.ToolName, Content: resultText(ti)})
		}
	}
	if main.Role != schema.Assistant && len(main.ToolCalls) > 0 {
		main.Role = schema.Assistant
	}
	return append([]*schema.Message{main}, results...)
}

func callFromCore(ti *core.ToolInvocation, cm *callMeta) schema.ToolCall {
	tc := schema.ToolCall{ID: ti.ToolCallID, Type: "function", Function: schema.FunctionCall{Name: ti.ToolName, Arguments: argsText(ti.Args)}}
	if cm == nil {
		return tc
	}
	tc.Index = cm.Index
	if cm.Type != nil {
		tc.Type = *cm.Type
	}
	if len(cm.Extra) > 0 {
		tc.Extra = make(map[string]any, len(cm.Extra))
		for k, v := range cm.Extra {
			tc.Extra[k] = v
		}
	}
	if cm.Arguments != nil {
		tc.Function.Arguments = *cm.Arguments
	}
	if cm.NoID {
		tc.ID = ""
	}
	if cm.NoName {
		tc.Function.Name = ""
	}
	return tc
}

// applyLayout rebuilds the content fields from the layout; false when there
// is none or it does not match the parts (then the default mapping applies).
func applyLayout(main *schema.Message, layout []layoutEntry, content []*core.Part) bool {
	if len(layout) == 0 {
		return false
	}
	n := 0
	for _, e := range layout {
		if !e.Inline {
			n++
		}
	}
	if n != len(content) {
		return false
	}
	var msg schema.Message
	next := 0
	for _, e := range layout {
		var cp *core.Part
		if !e.Inline {
			cp = content[next]
			next++
		}
		switch e.F {
		case "reasoning":
			if cp == nil || cp.Type != core.PartReasoning {
				return false
			}
			msg.ReasoningContent = cp.Reasoning
		case "content":
			if cp == nil || cp.Type != core.PartText {
				return false
			}
			msg.Content = cp.Text
		case "multi":
			p, err := legacyPartFromCore(e, cp)
			if err != nil {
				return false
			}
			msg.MultiContent = append(msg.MultiContent, p)
		case "input":
			p, err := inputPartFromCore(e, cp)
			if err != nil {
				return false
			}
			msg.UserInputMultiContent = append(msg.UserInputMultiContent, p)
		case "output":
			p, err := outputPartFromCore(e, cp)
			if err != nil {
				return false
			}
			msg.AssistantGenMultiContent = append(msg.AssistantGenMultiContent, p)
		default:
			return false
		}
	}
	main.Content, main.ReasoningContent = msg.Content, msg.ReasoningContent
	main.MultiContent, main.UserInputMultiContent, main.AssistantGenMultiContent = msg.MultiContent, msg.UserInputMultiContent, msg.AssistantGenMultiContent
	return true
}

// defaultContent maps parts without a layout: reasoning to ReasoningContent,
// text to Content, and files to multi-content parts (with the text parts in
// order) for user and assistant messages.
func defaultContent(main *schema.Message, content []*core.Part) {
	var texts, reasoning []string
	files := false
	for _, p := range content {
		switch p.Type {
		case core.PartText:
			texts = append(texts, p.Text)
		case core.PartReasoning:
			reasoning = append(reasoning, p.Reasoning)
		case core.PartFile:
			files = true
		}
	}
	main.ReasoningContent = strings.Join(reasoning, "\n")
	if !files || main.Role == schema.System {
		main.Content = strings.Join(texts, "\n")
		return
	}
	for _, p := range content {
		switch p.Type {
		case core.PartText:
			if main.Role == schema.User {
				main.UserInputMultiContent = append(main.UserInputMultiContent, schema.MessageInputPart{Type: schema.ChatMessagePartTypeText, Text: p.Text})
			} else {
				main.AssistantGenMultiContent = append(main.AssistantGenMultiContent, schema.MessageOutputPart{Type: schema.ChatMessagePartTypeText, Text: p.Text})
			}
		case core.PartFile:
			c := fileCommon(p)
			kind := strings.SplitN(p.MimeType, "/", 2)[0]
			if main.Role == schema.User {
				ip := schema.MessageInputPart{}
				switch kind {
				case "image":
					ip.Type, ip.Image = schema.ChatMessagePartTypeImageURL, &schema.MessageInputImage{MessagePartCommon: c}
				case "audio":
					ip.Type, ip.Audio = schema.ChatMessagePartTypeAudioURL, &schema.MessageInputAudio{MessagePartCommon: c}
				case "video":
					ip.Type, ip.Video = schema.ChatMessagePartTypeVideoURL, &schema.MessageInputVideo{MessagePartCommon: c}
				default:
					ip.Type, ip.File = schema.ChatMessagePartTypeFileURL, &schema.MessageInputFile{MessagePartCommon: c, Name: p.Filename}
				}
				main.UserInputMultiContent = append(main.UserInputMultiContent, ip)
				continue
			}
			op := schema.MessageOutputPart{}
			switch kind {
			case "image":
				op.Type, op.Image = schema.ChatMessagePartTypeImageURL, &schema.MessageOutputImage{MessagePartCommon: c}
			case "audio":
				op.Type, op.Audio = schema.ChatMessagePartTypeAudioURL, &schema.MessageOutputAudio{MessagePartCommon: c}
			case "video":
				op.Type, op.Video = schema.ChatMessagePartTypeVideoURL, &schema.MessageOutputVideo{MessagePartCommon: c}
			default:
				continue // assistant output has no file parts
			}
			main.AssistantGenMultiContent = append(main.AssistantGenMultiContent, op)
		}
	}
}

// fileCommon maps a file part's data: URLs (with a scheme) stay URLs, anything
// else is base64 data.
func fileCommon(p *core.Part) schema.MessagePartCommon {
	c := schema.MessagePartCommon{MIMEType: p.MimeType}
	if strings.HasSuffix(c.MIMEType, "/*") {
		c.MIMEType = ""
	}
	d := p.Data
	if strings.Contains(d, "://") || strings.HasPrefix(d, "data:") {
		c.URL = strPtr(d)
	} else {
		c.Base64Data = strPtr(d)
	}
	return c
}
