package store

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
)

// The field rules every backend shares. core's checked store applies them
// before any driver runs, so the same input gets the same answer on every
// store: a value is refused with a typed error, never rewritten (JSON
// encoding would replace invalid UTF-8 with U+FFFD; PostgreSQL refuses NUL
// in text and jsonb; SQLite's JSON functions stop at nesting depth 1000 and
// encoding/json at 10000, so one deep row would make listing fail).

// MaxIDBytes caps every id.
const MaxIDBytes = 1024

// MaxJSONDepth caps how deeply metadata and the JSON values of a message
// (tool arguments and results, provider metadata) nest, objects and arrays.
const MaxJSONDepth = 100

// ValidateID checks that an id is a non-blank, valid UTF-8 string without
// NUL, at most MaxIDBytes long.
func ValidateID(name, id string) error {
	code := memerr.CodeInvalidArgument
	switch name {
	case "threadId":
		code = memerr.CodeMissingThreadID
	case "resourceId":
		code = memerr.CodeMissingResourceID
	}
	if strings.TrimSpace(id) == "" {
		return &memerr.Error{Code: code, Msg: name + " must be a non-empty string"}
	}
	if !utf8.ValidString(id) || strings.IndexByte(id, 0) >= 0 || len(id) > MaxIDBytes {
		return &memerr.Error{Code: memerr.CodeInvalidArgument, Msg: name + " must be valid UTF-8 without NUL, at most 1024 bytes"}
	}
	return nil
}

// ValidateIDs checks every id of a list (GetMessages, DeleteMessages, the
// index queue): unknown ids are fine, malformed ones are not.
func ValidateIDs(name string, ids []string) error {
	for _, id := range ids {
		if err := ValidateID(name, id); err != nil {
			return err
		}
	}
	return nil
}

// ValidateText checks free text (a title, working memory, observations, a
// message type): valid UTF-8 without NUL.
func ValidateText(name, s string) error {
	if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
		return memerr.Errorf(memerr.CodeInvalidArgument, "", "%s must be valid UTF-8 without NUL", name)
	}
	return nil
}

// ValidateMetadata checks a metadata map (of a thread, resource or message
// content): JSON-encodable, keys and strings valid UTF-8 without NUL, no
// NaN or infinite numbers, nested at most MaxJSONDepth deep.
func ValidateMetadata(name string, m map[string]any) error {
	if m == nil {
		return nil
	}
	if why := checkValue(reflect.ValueOf(m), 0); why != "" {
		return memerr.Errorf(memerr.CodeInvalidArgument, "", "%s: %s", name, why)
	}
	if _, err := json.Marshal(m); err != nil {
		return &memerr.Error{Code: memerr.CodeInvalidArgument, Msg: name + " is not JSON-encodable", Err: err}
	}
	return nil
}

// checkValue walks v, nested inside depth objects or arrays, and returns
// why it is refused, or "".
func checkValue(v reflect.Value, depth int) string {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return ""
		}
		return checkValue(v.Elem(), depth)
	case reflect.String:
		if !validText(v.String()) {
			return "strings must be valid UTF-8 without NUL"
		}
		return ""
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return "numbers must be finite"
		}
		return ""
	case reflect.Map, reflect.Slice, reflect.Array, reflect.Struct:
	default:
		return ""
	}
	if depth++; depth > MaxJSONDepth {
		return "nested deeper than 100 levels"
	}
	var children []reflect.Value
	switch v.Kind() {
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			children = append(children, it.Key(), it.Value())
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return "" // []byte encodes as base64
		}
		for i := 0; i < v.Len(); i++ {
			children = append(children, v.Index(i))
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				children = append(children, v.Field(i))
			}
		}
	}
	for _, c := range children {
		if why := checkValue(c, depth); why != "" {
			return why
		}
	}
	return ""
}

// ValidateMessage checks a message as stores keep it: ids, a role, a
// creation time, a token count that fits 32 bits, and its content (see
// ValidateContent). The error has CodeInvalidMessage (or an id's code).
func ValidateMessage(i int, m *message.Message) error {
	if err := ValidateStamp(i, m); err != nil {
		return err
	}
	return ValidateContent(m)
}

// ValidateStamp checks what ValidateMessage checks besides the content: the
// ids, a role, a creation time and the token count with its encoding (what
// Memory assigns when it saves). Message i of a batch.
func ValidateStamp(i int, m *message.Message) error {
	for _, c := range [...]struct{ name, v string }{{"id", m.ID}, {"threadId", m.ThreadID}, {"resourceId", m.ResourceID}} {
		if err := ValidateID(c.name, c.v); err != nil {
			return err
		}
	}
	if m.Role == "" || m.CreatedAt.IsZero() {
		return memerr.Errorf(memerr.CodeInvalidMessage, "", "message %d (%q) needs a role and createdAt", i, m.ID)
	}
	if m.Tokens < 0 || m.Tokens > math.MaxInt32 {
		return memerr.Errorf(memerr.CodeInvalidMessage, "", "message %q: token count out of range", m.ID)
	}
	if !validText(m.TokenEncoding) {
		return memerr.Errorf(memerr.CodeInvalidMessage, "", "message %q: token encoding must be valid UTF-8 without NUL", m.ID)
	}
	return nil
}

// ValidateContent checks what a message carries: role and type, every
// part's strings and JSON values, and the content metadata. Ids, time and
// the token count are not checked (Memory assigns them; see ValidateStamp).
func ValidateContent(m *message.Message) error {
	bad := func(format string, a ...any) error {
		return memerr.Errorf(memerr.CodeInvalidMessage, "", format, a...)
	}
	if !validText(string(m.Role)) || !validText(m.Type) {
		return bad("message %q: role and type must be valid UTF-8 without NUL", m.ID)
	}
	for i, p := range m.Content.Parts {
		if p.Type == "" {
			return bad("message %q part %d: missing type", m.ID, i)
		}
		if why := checkPart(&p); why != "" {
			return bad("message %q part %d: %s", m.ID, i, why)
		}
	}
	for _, r := range m.Content.Extra {
		if !validJSON(r) {
			return bad("message %q: invalid JSON value", m.ID)
		}
	}
	if !validJSON(m.Content.ProviderMetadata) {
		return bad("message %q: invalid JSON value", m.ID)
	}
	if err := ValidateMetadata("metadata", m.Content.Metadata); err != nil {
		return bad("message %q: %s", m.ID, err.(*memerr.Error).Msg)
	}
	return nil
}

// checkPart returns why a part is refused, or "".
func checkPart(p *message.Part) string {
	strs := []string{p.Type, p.Text, p.Reasoning, p.Data, p.MimeType, p.Filename}
	raws := []json.RawMessage{p.ProviderMetadata}
	if ti := p.ToolInvocation; ti != nil {
		if ti.ToolCallID == "" || ti.ToolName == "" {
			return "tool invocation needs toolCallId and toolName"
		}
		if ti.State == "" {
			return "tool invocation without state"
		}
		strs = append(strs, ti.ToolCallID, ti.ToolName, ti.State, ti.ErrorText)
		raws = append(raws, ti.Args, ti.Result)
	} else if p.Type == message.PartToolInvocation {
		return "tool-invocation part without toolInvocation"
	}
	if src := p.Source; src != nil {
		strs = append(strs, src.SourceType, src.ID, src.URL, src.Title)
		raws = append(raws, src.ProviderMetadata)
	}
	for _, d := range p.Details {
		strs = append(strs, d.Type, d.Text, d.Data, d.Signature)
	}
	for _, r := range p.Extra {
		raws = append(raws, r)
	}
	for _, s := range strs {
		if !validText(s) {
			return "text must be valid UTF-8 without NUL"
		}
	}
	for _, r := range raws {
		if !validJSON(r) {
			return "invalid JSON value"
		}
	}
	return ""
}

func validText(s string) bool { return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 }

// validJSON accepts an empty value or valid UTF-8 JSON without NUL (an
// escaped \u0000 is refused by PostgreSQL's jsonb) nested at most
// MaxJSONDepth deep.
func validJSON(r json.RawMessage) bool {
	return len(r) == 0 || (utf8.Valid(r) && json.Valid(r) && !strings.Contains(string(r), `\u0000`) && jsonDepth(r) <= MaxJSONDepth)
}

// jsonDepth is the nesting depth of valid JSON text.
func jsonDepth(r []byte) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(r); i++ {
		switch c := r[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}
