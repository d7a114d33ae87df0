package message

import (
	"encoding/json"
	"reflect"
	"strings"
	"time"
)

// Role is who produced a message.
type Role string

// Message roles of format 2. There is no tool role: tool results live in
// assistant messages as tool-invocation parts in state "result".
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleSystem    Role = "system" // never persisted
	RoleSignal    Role = "signal"
)

// Source tells where a prompt message came from, so trimming and persistence
// can tell remembered history from the live turn.
type Source string

// Message sources. Only SourceMemory and SourceRecall messages are ever
// trimmed; only SourceInput and SourceResponse messages are persisted by Commit.
const (
	SourceInput    Source = "input"
	SourceResponse Source = "response"
	SourceMemory   Source = "memory"
	// SourceRecall marks messages of the turn's thread that semantic recall
	// added to the prompt (a hit and its message range outside the history
	// window), wherever they sit in it; a hit history already held stays
	// SourceMemory.
	SourceRecall  Source = "recall"
	SourceContext Source = "context"
	SourceSystem  Source = "system"
)

// Message is a stored conversation message (MastraDBMessage, format 2).
type Message struct {
	ID         string    `json:"id"`
	Role       Role      `json:"role"`
	ThreadID   string    `json:"threadId,omitempty"`
	ResourceID string    `json:"resourceId,omitempty"`
	CreatedAt  time.Time `json:"createdAt"`
	Type       string    `json:"type,omitempty"`
	Content    Content   `json:"content"`

	// Tokens is the token count of the message, computed once when it is saved
	// with the tokenizer named by TokenEncoding. Stores persist both.
	Tokens        int    `json:"-"`
	TokenEncoding string `json:"-"`
	// Seq is the store's insertion sequence, the tie-break after CreatedAt.
	Seq int64 `json:"-"`
	// Source is set on prompt messages returned by Turn.Messages; never stored.
	Source Source `json:"-"`
}

// Content is the body of a format-2 message. Parts is the source of truth; the
// AI SDK v4 mirrors (content, toolInvocations, reasoning,
// experimental_attachments) are derived when encoding and accepted when decoding.
type Content struct {
	Format           int             `json:"format"`
	Parts            []Part          `json:"parts"`
	Metadata         map[string]any  `json:"metadata,omitempty"`
	ProviderMetadata json.RawMessage `json:"providerMetadata,omitempty"`
	// Extra holds unknown top-level content fields, preserved on round trip.
	Extra map[string]json.RawMessage `json:"-"`
	// Skipped reports what decoding dropped to keep a stored row readable,
	// one entry per element (e.g. "parts[2]: null"); nil when nothing was.
	// It is never encoded: the dropped elements carried no content.
	Skipped []string `json:"-"`
}

// Part types of format 2.
const (
	PartText           = "text"
	PartReasoning      = "reasoning"
	PartToolInvocation = "tool-invocation"
	PartFile           = "file"
	PartSource         = "source"
	PartStepStart      = "step-start"
)

// Part is one ordered element of a message. Only the fields of its Type are
// used; fields this package does not know are kept in Extra so an unknown part
// type survives a decode/encode round trip unchanged.
type Part struct {
	Type string

	Text string // text

	Reasoning string            // reasoning
	Details   []ReasoningDetail // reasoning

	ToolInvocation *ToolInvocation // tool-invocation

	Data     string // file: base64, data URI, URL or provider file id
	MimeType string // file
	Filename string // file

	Source *SourceRef // source

	ProviderMetadata json.RawMessage
	Extra            map[string]json.RawMessage
}

// ReasoningDetail is one element of a reasoning part's details.
type ReasoningDetail struct {
	Type      string `json:"type"`
	Text      string `json:"text,omitempty"`
	Signature string `json:"signature,omitempty"`
	Data      string `json:"data,omitempty"`
}

// Tool invocation states.
const (
	ToolStatePartialCall = "partial-call" // streaming arguments; never persisted
	ToolStateCall        = "call"         // arguments complete, awaiting result
	ToolStateResult      = "result"
)

// ToolInvocation is a tool call and, once it has run, its result.
type ToolInvocation struct {
	State      string          `json:"state"`
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Args       json.RawMessage `json:"args,omitempty"`
	Result     json.RawMessage `json:"result,omitempty"`
	IsError    bool            `json:"isError,omitempty"`
	ErrorText  string          `json:"errorText,omitempty"`
	Step       *int            `json:"step,omitempty"`
}

// SourceRef is a URL source cited by the model.
type SourceRef struct {
	SourceType       string          `json:"sourceType"`
	ID               string          `json:"id"`
	URL              string          `json:"url"`
	Title            string          `json:"title,omitempty"`
	ProviderMetadata json.RawMessage `json:"providerMetadata,omitempty"`
}

// TextPart returns a text part.
func TextPart(text string) Part { return Part{Type: PartText, Text: text} }

// NewMessage returns a message with one text part. ID and CreatedAt are
// assigned on save when empty.
func NewMessage(role Role, text string) Message {
	return Message{Role: role, Content: Content{Format: 2, Parts: []Part{TextPart(text)}}}
}

// Text returns the message text: text parts joined by "\n".
func (m *Message) Text() string {
	var b strings.Builder
	for _, p := range m.Content.Parts {
		if p.Type == PartText && p.Text != "" {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// ToolCallIDs returns the tool call ids referenced by the message's parts.
func (m *Message) ToolCallIDs() []string {
	var ids []string
	for _, p := range m.Content.Parts {
		if p.ToolInvocation != nil && p.ToolInvocation.ToolCallID != "" {
			ids = append(ids, p.ToolInvocation.ToolCallID)
		}
	}
	return ids
}

// Clone returns a deep copy of m.
func (m Message) Clone() Message {
	m.Content = m.Content.Clone()
	return m
}

// Clone returns a deep copy of c.
func (c Content) Clone() Content {
	c.Metadata = cloneMap(c.Metadata)
	c.ProviderMetadata = cloneRaw(c.ProviderMetadata)
	c.Extra = cloneRawMap(c.Extra)
	c.Skipped = append([]string(nil), c.Skipped...)
	if c.Parts != nil {
		parts := make([]Part, len(c.Parts))
		for i, p := range c.Parts {
			p.Details = append([]ReasoningDetail(nil), p.Details...)
			if p.ToolInvocation != nil {
				ti := *p.ToolInvocation
				ti.Args, ti.Result = cloneRaw(ti.Args), cloneRaw(ti.Result)
				if ti.Step != nil {
					step := *ti.Step
					ti.Step = &step
				}
				p.ToolInvocation = &ti
			}
			if p.Source != nil {
				src := *p.Source
				src.ProviderMetadata = cloneRaw(src.ProviderMetadata)
				p.Source = &src
			}
			p.ProviderMetadata = cloneRaw(p.ProviderMetadata)
			p.Extra = cloneRawMap(p.Extra)
			parts[i] = p
		}
		c.Parts = parts
	}
	return c
}

func cloneRaw(r json.RawMessage) json.RawMessage {
	if r == nil {
		return nil
	}
	return append(json.RawMessage(nil), r...)
}

func cloneRawMap(m map[string]json.RawMessage) map[string]json.RawMessage {
	if m == nil {
		return nil
	}
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		out[k] = cloneRaw(v)
	}
	return out
}

// CloneMetadata deep-copies JSON-like metadata (maps, slices and scalars);
// stores use it to copy metadata in and out.
func CloneMetadata(m map[string]any) map[string]any { return cloneMap(m) }

func cloneMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = cloneValue(v)
	}
	return out
}

func cloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return cloneMap(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneValue(e)
		}
		return out
	case json.RawMessage:
		return cloneRaw(x)
	default:
		return cloneTyped(v)
	}
}

// cloneTyped deep-copies a typed slice or map ([]string, map[string]int,
// ...), which a caller may change after handing it over; other values are
// returned as they are.
func cloneTyped(v any) any {
	rv := reflect.ValueOf(v)
	switch {
	case rv.Kind() == reflect.Slice && !rv.IsNil():
		out := reflect.MakeSlice(rv.Type(), rv.Len(), rv.Len())
		for i := range rv.Len() {
			out.Index(i).Set(cloneElem(rv.Index(i)))
		}
		return out.Interface()
	case rv.Kind() == reflect.Map && !rv.IsNil():
		out := reflect.MakeMapWithSize(rv.Type(), rv.Len())
		for it := rv.MapRange(); it.Next(); {
			out.SetMapIndex(it.Key(), cloneElem(it.Value()))
		}
		return out.Interface()
	}
	return v
}

// cloneElem deep-copies an element of a typed slice or map, as a value of
// the element's type.
func cloneElem(e reflect.Value) reflect.Value {
	if e.Kind() == reflect.Interface && e.IsNil() {
		return e
	}
	c := reflect.ValueOf(cloneValue(e.Interface()))
	if e.Kind() == reflect.Interface {
		out := reflect.New(e.Type()).Elem()
		out.Set(c)
		return out
	}
	return c
}

// Less orders messages by (CreatedAt, Seq), the total order of a thread.
func Less(a, b *Message) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.Before(b.CreatedAt)
	}
	return a.Seq < b.Seq
}
