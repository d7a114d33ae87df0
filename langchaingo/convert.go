package langchaingo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tmc/langchaingo/llms"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
)

// MetadataKey is the key of content.metadata under which langchaingo-only
// details of a message are stored (generic roles and names, the exact tool
// calls of an AI message, the legacy function call), so that they round-trip.
const MetadataKey = "langchaingo"

// UnknownToolName is the tool name stored for a tool call or result whose
// function name is not known (core requires one). It is the placeholder both
// adapters share, message.PlaceholderToolName; messages stored with the
// older "unknown" are read the same way (message.IsPlaceholderToolName).
const UnknownToolName = message.PlaceholderToolName

// Keys of the metadata stored under MetadataKey.
const (
	metaType         = "type"         // "system", "generic" or "function"
	metaRole         = "role"         // generic role
	metaName         = "name"         // generic or function name
	metaToolCalls    = "toolCalls"    // JSON of []storedCall
	metaFunctionCall = "functionCall" // JSON of storedFunctionCall
	metaToolCallID   = "toolCallId"   // original ToolChatMessage id when it was empty
)

// storedCall is the exact llms.ToolCall behind the tool-invocation part with
// id ID (which differs from Call.ID only when that was empty or repeated).
type storedCall struct {
	ID   string       `json:"id"`
	Call wireToolCall `json:"call"`
}

// wireToolCall is the plain JSON form of an llms.ToolCall (whose own JSON
// methods lose the function on decoding in langchaingo v0.1.14).
type wireToolCall struct {
	ID       string             `json:"id"`
	Type     string             `json:"type"`
	Function *llms.FunctionCall `json:"function,omitempty"`
}

func toWire(calls []llms.ToolCall) []wireToolCall {
	if calls == nil {
		return nil
	}
	out := make([]wireToolCall, len(calls))
	for i, tc := range calls {
		out[i] = wireToolCall{ID: tc.ID, Type: tc.Type, Function: tc.FunctionCall}
	}
	return out
}

func (w wireToolCall) toolCall() llms.ToolCall {
	tc := llms.ToolCall{ID: w.ID, Type: w.Type}
	if w.Function != nil {
		f := *w.Function
		tc.FunctionCall = &f
	}
	return tc
}

// storedFunctionCall is the exact legacy function call of an AI message.
type storedFunctionCall struct {
	ID       string            `json:"id"`
	Function llms.FunctionCall `json:"function"`
}

// callInfo is what a tool result needs to know about its call.
type callInfo struct {
	name string
	args json.RawMessage
}

// toCoreState carries tool calls across the messages of one conversion so
// tool results find the name and arguments of their call.
type toCoreState struct {
	calls  map[string]callInfo // call id -> call
	openFn map[string][]string // function name -> ids of unanswered legacy calls
	// lookup finds a call made before this batch (nil: none).
	lookup func(id string) (callInfo, bool)
	// lookupFn finds an unanswered legacy function call made before this batch.
	lookupFn func(name string) (string, callInfo, bool)
	// noID holds the generated ids of the last AI message's tool calls that
	// had no id, not yet answered: a result without id answers the next one.
	noID []string
	// batchCalls is set once an AI message with tool calls was converted.
	batchCalls bool
	// lookupNoID finds the next unanswered id-less call made before this batch.
	lookupNoID func() (string, callInfo, bool)
}

func newToCoreState() *toCoreState {
	return &toCoreState{calls: map[string]callInfo{}, openFn: map[string][]string{}}
}

// MessagesToCore converts langchaingo chat messages to core messages, one
// core message per chat message, without ids, thread or timestamps:
//   - HumanChatMessage becomes a user message, AIChatMessage an assistant
//     message with reasoning, text and tool-invocation parts in state "call"
//     (a legacy FunctionCall too);
//   - ToolChatMessage and FunctionChatMessage become assistant messages with
//     one tool-invocation part in state "result" whose name and arguments
//     come from the earlier call with the same id (or, for a function
//     message, the last unanswered function call of that name);
//   - SystemChatMessage becomes a "signal" message (core never stores role
//     "system") and GenericChatMessage a user message (assistant for the
//     roles "ai" and "assistant").
//
// Details core has no field for are stored in content.metadata under
// MetadataKey, so [MessagesFromCore] restores the messages exactly. Messages
// of other types are converted by their GetType and GetContent.
func MessagesToCore(msgs []llms.ChatMessage) ([]message.Message, error) {
	return newToCoreState().convertAll(msgs)
}

func (s *toCoreState) convertAll(msgs []llms.ChatMessage) ([]message.Message, error) {
	out := make([]message.Message, 0, len(msgs))
	for i, msg := range msgs {
		m, err := s.convert(msg)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		out = append(out, m)
	}
	return out, nil
}

// normalize returns msg as one of the six value types of package llms.
func normalize(msg llms.ChatMessage) (llms.ChatMessage, error) {
	switch m := msg.(type) {
	case nil:
		return nil, memerr.Errorf(memerr.CodeInvalidMessage, "convert", "nil chat message")
	case llms.AIChatMessage, llms.HumanChatMessage, llms.SystemChatMessage,
		llms.GenericChatMessage, llms.FunctionChatMessage, llms.ToolChatMessage:
		return m, nil
	case *llms.AIChatMessage:
		if m != nil {
			return *m, nil
		}
	case *llms.HumanChatMessage:
		if m != nil {
			return *m, nil
		}
	case *llms.SystemChatMessage:
		if m != nil {
			return *m, nil
		}
	case *llms.GenericChatMessage:
		if m != nil {
			return *m, nil
		}
	case *llms.FunctionChatMessage:
		if m != nil {
			return *m, nil
		}
	case *llms.ToolChatMessage:
		if m != nil {
			return *m, nil
		}
	default:
		name := ""
		if n, ok := msg.(llms.Named); ok {
			name = n.GetName()
		}
		switch msg.GetType() {
		case llms.ChatMessageTypeAI:
			return llms.AIChatMessage{Content: msg.GetContent()}, nil
		case llms.ChatMessageTypeHuman:
			return llms.HumanChatMessage{Content: msg.GetContent()}, nil
		case llms.ChatMessageTypeSystem:
			return llms.SystemChatMessage{Content: msg.GetContent()}, nil
		case llms.ChatMessageTypeGeneric:
			return llms.GenericChatMessage{Content: msg.GetContent(), Name: name}, nil
		case llms.ChatMessageTypeFunction:
			return llms.FunctionChatMessage{Name: name, Content: msg.GetContent()}, nil
		case llms.ChatMessageTypeTool:
			id := ""
			if x, ok := msg.(interface{ GetID() string }); ok {
				id = x.GetID()
			}
			return llms.ToolChatMessage{ID: id, Content: msg.GetContent()}, nil
		}
		return nil, fmt.Errorf("%w: %q", llms.ErrUnexpectedChatMessageType, msg.GetType())
	}
	return nil, memerr.Errorf(memerr.CodeInvalidMessage, "convert", "nil chat message")
}

func textMessage(role message.Role, text string) message.Message {
	return message.Message{Role: role, Content: message.Content{Format: 2, Parts: []message.Part{core.TextPart(text)}}}
}

func checkUTF8(strs ...string) error {
	for _, s := range strs {
		if !utf8.ValidString(s) {
			return memerr.Errorf(memerr.CodeInvalidMessage, "convert", "message contains invalid UTF-8")
		}
	}
	return nil
}

func (s *toCoreState) convert(msg llms.ChatMessage) (message.Message, error) {
	msg, err := normalize(msg)
	if err != nil {
		return message.Message{}, err
	}
	if err := checkUTF8(msg.GetContent()); err != nil {
		return message.Message{}, err
	}
	switch m := msg.(type) {
	case llms.HumanChatMessage:
		return textMessage(message.RoleUser, m.Content), nil
	case llms.SystemChatMessage:
		out := textMessage(message.RoleSignal, m.Content)
		out.Content.Metadata = map[string]any{MetadataKey: map[string]any{metaType: "system"}}
		return out, nil
	case llms.GenericChatMessage:
		if err := checkUTF8(m.Role, m.Name); err != nil {
			return message.Message{}, err
		}
		role := message.RoleUser
		if r := strings.ToLower(m.Role); r == "ai" || r == "assistant" {
			role = message.RoleAssistant
		}
		out := textMessage(role, m.Content)
		out.Content.Metadata = map[string]any{MetadataKey: map[string]any{metaType: "generic", metaRole: m.Role, metaName: m.Name}}
		return out, nil
	case llms.AIChatMessage:
		return s.aiMessage(m)
	case llms.ToolChatMessage:
		return s.toolMessage(m)
	case llms.FunctionChatMessage:
		return s.functionMessage(m)
	}
	return message.Message{}, fmt.Errorf("%w: %T", llms.ErrUnexpectedChatMessageType, msg)
}

func (s *toCoreState) aiMessage(m llms.AIChatMessage) (message.Message, error) {
	if err := checkUTF8(m.ReasoningContent); err != nil {
		return message.Message{}, err
	}
	out := message.Message{Role: message.RoleAssistant, Content: message.Content{Format: 2}}
	if m.ReasoningContent != "" {
		out.Content.Parts = append(out.Content.Parts, message.Part{Type: message.PartReasoning, Reasoning: m.ReasoningContent})
	}
	if m.Content != "" || (len(m.ToolCalls) == 0 && m.FunctionCall == nil) {
		out.Content.Parts = append(out.Content.Parts, core.TextPart(m.Content))
	}
	meta := map[string]any{}
	if len(m.ToolCalls) > 0 {
		seen := map[string]bool{}
		stored := make([]storedCall, 0, len(m.ToolCalls))
		s.noID, s.batchCalls = nil, true
		for _, tc := range m.ToolCalls {
			id := tc.ID
			if id == "" || seen[id] {
				id = message.NewToolCallID()
			}
			if tc.ID == "" {
				s.noID = append(s.noID, id)
			}
			seen[id] = true
			name, args := UnknownToolName, json.RawMessage(nil)
			if fc := tc.FunctionCall; fc != nil {
				if err := checkUTF8(fc.Name, fc.Arguments); err != nil {
					return message.Message{}, err
				}
				if fc.Name != "" {
					name = fc.Name
				}
				args = argsJSON(fc.Arguments)
			}
			if err := checkUTF8(tc.ID, tc.Type); err != nil {
				return message.Message{}, err
			}
			out.Content.Parts = append(out.Content.Parts, callPart(id, name, args))
			s.calls[id] = callInfo{name: name, args: args}
			stored = append(stored, storedCall{ID: id, Call: wireToolCall{ID: tc.ID, Type: tc.Type, Function: tc.FunctionCall}})
		}
		meta[metaToolCalls] = mustJSON(stored)
	}
	if fc := m.FunctionCall; fc != nil {
		if err := checkUTF8(fc.Name, fc.Arguments); err != nil {
			return message.Message{}, err
		}
		id := message.NewToolCallID()
		name := fc.Name
		if name == "" {
			name = UnknownToolName
		}
		args := argsJSON(fc.Arguments)
		out.Content.Parts = append(out.Content.Parts, callPart(id, name, args))
		s.calls[id] = callInfo{name: name, args: args}
		s.openFn[fc.Name] = append(s.openFn[fc.Name], id)
		meta[metaFunctionCall] = mustJSON(storedFunctionCall{ID: id, Function: *fc})
	}
	if len(meta) > 0 {
		out.Content.Metadata = map[string]any{MetadataKey: meta}
	}
	return out, nil
}

func (s *toCoreState) toolMessage(m llms.ToolChatMessage) (message.Message, error) {
	if err := checkUTF8(m.ID); err != nil {
		return message.Message{}, err
	}
	id := m.ID
	var info callInfo
	ok := false
	if id == "" {
		// A result without id answers the next id-less call (providers
		// such as googleai return calls without ids).
		if len(s.noID) > 0 {
			id, s.noID = s.noID[0], s.noID[1:]
		} else if !s.batchCalls && s.lookupNoID != nil {
			id, info, ok = s.lookupNoID()
		}
		if id == "" {
			id = message.NewToolCallID()
		}
	}
	if !ok {
		info, ok = s.calls[id]
	}
	if !ok && s.lookup != nil && m.ID != "" {
		info, ok = s.lookup(id)
	}
	if !ok {
		info = callInfo{name: UnknownToolName}
	}
	out := message.Message{Role: message.RoleAssistant, Content: message.Content{Format: 2,
		Parts: []message.Part{resultPart(id, info, m.Content)}}}
	if m.ID == "" {
		out.Content.Metadata = map[string]any{MetadataKey: map[string]any{metaToolCallID: ""}}
	}
	return out, nil
}

func (s *toCoreState) functionMessage(m llms.FunctionChatMessage) (message.Message, error) {
	if err := checkUTF8(m.Name); err != nil {
		return message.Message{}, err
	}
	var id string
	var info callInfo
	if open := s.openFn[m.Name]; len(open) > 0 {
		id = open[len(open)-1]
		s.openFn[m.Name] = open[:len(open)-1]
		info = s.calls[id]
	} else if s.lookupFn != nil {
		if fid, fi, ok := s.lookupFn(m.Name); ok {
			id, info = fid, fi
		}
	}
	if id == "" {
		id = message.NewToolCallID()
		info = callInfo{name: m.Name}
		if info.name == "" {
			info.name = UnknownToolName
		}
	}
	out := message.Message{Role: message.RoleAssistant, Content: message.Content{Format: 2,
		Parts: []message.Part{resultPart(id, info, m.Content)}}}
	out.Content.Metadata = map[string]any{MetadataKey: map[string]any{metaType: "function", metaName: m.Name}}
	return out, nil
}

func callPart(id, name string, args json.RawMessage) message.Part {
	return message.Part{Type: message.PartToolInvocation, ToolInvocation: &message.ToolInvocation{
		State: message.ToolStateCall, ToolCallID: id, ToolName: name, Args: args}}
}

func resultPart(id string, info callInfo, content string) message.Part {
	return message.Part{Type: message.PartToolInvocation, ToolInvocation: &message.ToolInvocation{
		State: message.ToolStateResult, ToolCallID: id, ToolName: info.name,
		Args: append(json.RawMessage(nil), info.args...), Result: stringJSON(content)}}
}

// argsJSON stores tool-call arguments in canonical form
// (message.CanonicalArgs); the exact text is kept in metadata.
func argsJSON(s string) json.RawMessage { return message.CanonicalArgs(json.RawMessage(s)) }

// stringJSON encodes s as a JSON string without HTML escaping.
func stringJSON(s string) json.RawMessage { return json.RawMessage(mustJSON(s)) }

// jsonText is the text of a JSON value: a JSON string is unquoted, anything
// else is returned as its JSON text.
func jsonText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	return string(raw)
}

// mustJSON encodes v (plain data only) without HTML escaping.
func mustJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only strings, maps and structs of strings are encoded here
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// lcMeta returns the metadata stored under MetadataKey, or nil.
func lcMeta(m *message.Message) map[string]any {
	meta, _ := m.Content.Metadata[MetadataKey].(map[string]any)
	return meta
}

func metaString(meta map[string]any, key string) (string, bool) {
	s, ok := meta[key].(string)
	return s, ok
}

// MessagesFromCore converts core messages (stored rows or the prompt of a
// turn) to langchaingo chat messages, the inverse of [MessagesToCore]:
//   - user and signal messages become HumanChatMessage, system messages
//     SystemChatMessage, unless metadata records another langchaingo type;
//   - an assistant message becomes an AIChatMessage with its text, reasoning
//     and tool calls; a tool result whose call was already emitted becomes a
//     ToolChatMessage (FunctionChatMessage for a legacy function result),
//     and one whose call was not emitted becomes an AIChatMessage with the
//     call followed by the ToolChatMessage, so every result follows its call.
//
// Text parts are joined with "\n"; file and source parts have no langchaingo
// chat equivalent and are skipped. The result is never nil.
func MessagesFromCore(msgs []message.Message) []llms.ChatMessage {
	c := fromCoreState{emitted: map[string]bool{}}
	out := make([]llms.ChatMessage, 0, len(msgs))
	for i := range msgs {
		out = c.convert(out, &msgs[i])
	}
	return out
}

type fromCoreState struct {
	emitted map[string]bool // tool call ids whose call has been emitted
}

func (c *fromCoreState) convert(out []llms.ChatMessage, m *message.Message) []llms.ChatMessage {
	meta := lcMeta(m)
	typ, _ := metaString(meta, metaType)
	switch {
	case typ == "system" || m.Role == message.RoleSystem:
		return append(out, llms.SystemChatMessage{Content: m.Text()})
	case typ == "generic":
		role, _ := metaString(meta, metaRole)
		name, _ := metaString(meta, metaName)
		return append(out, llms.GenericChatMessage{Content: m.Text(), Role: role, Name: name})
	case m.Role == message.RoleUser || m.Role == message.RoleSignal:
		return append(out, llms.HumanChatMessage{Content: m.Text()})
	}
	return c.assistant(out, m, meta, typ == "function")
}

// assistant converts an assistant message, splitting it where text follows
// tool results so that every result directly follows its call.
func (c *fromCoreState) assistant(out []llms.ChatMessage, m *message.Message, meta map[string]any, function bool) []llms.ChatMessage {
	b := &aiBuilder{out: out, emitted: c.emitted, exact: readExactCalls(meta), function: function}
	for i := range m.Content.Parts {
		b.addPart(&m.Content.Parts[i])
	}
	b.flush()
	return b.out
}

// exactCalls are the langchaingo details stored with an assistant message.
type exactCalls struct {
	stored        map[string]llms.ToolCall // exact tool calls by part id
	fn            *storedFunctionCall      // exact legacy function call
	emptyResultID bool                     // the tool result's id was empty
	fnName        string                   // name of a function result
}

// readExactCalls reads the details of meta; missing or unreadable ones are
// left zero, so the message is converted from its parts alone.
func readExactCalls(meta map[string]any) exactCalls {
	e := exactCalls{stored: storedToolCalls(meta), fn: storedFunction(meta)}
	_, e.emptyResultID = metaString(meta, metaToolCallID)
	e.fnName, _ = metaString(meta, metaName)
	return e
}

// storedToolCalls returns the exact tool calls stored in meta by part id, or
// nil when there are none or they cannot be decoded.
func storedToolCalls(meta map[string]any) map[string]llms.ToolCall {
	s, ok := metaString(meta, metaToolCalls)
	if !ok {
		return nil
	}
	var calls []storedCall
	if json.Unmarshal([]byte(s), &calls) != nil {
		return nil
	}
	stored := make(map[string]llms.ToolCall, len(calls))
	for _, sc := range calls {
		stored[sc.ID] = sc.Call.toolCall()
	}
	return stored
}

// storedFunction returns the exact legacy function call stored in meta, or
// nil when there is none or it cannot be decoded.
func storedFunction(meta map[string]any) *storedFunctionCall {
	s, ok := metaString(meta, metaFunctionCall)
	if !ok {
		return nil
	}
	var f storedFunctionCall
	if json.Unmarshal([]byte(s), &f) != nil {
		return nil
	}
	return &f
}

// aiBuilder turns the parts of one assistant message into AI messages, each
// followed by the results of its calls.
type aiBuilder struct {
	out      []llms.ChatMessage
	emitted  map[string]bool // fromCoreState.emitted
	exact    exactCalls
	function bool // the message is a legacy function result

	cur    llms.AIChatMessage // the AI message being built
	has    bool               // cur has content to emit
	queued []llms.ChatMessage // results to emit after cur
}

// flush emits the current AI message and its queued results.
func (b *aiBuilder) flush() {
	if b.has {
		b.out = append(b.out, b.cur)
	}
	b.out = append(b.out, b.queued...)
	b.cur, b.has, b.queued = llms.AIChatMessage{}, false, nil
}

// endResults starts a new AI message when results are queued, so that
// content after a result does not end up before it.
func (b *aiBuilder) endResults() {
	if len(b.queued) > 0 {
		b.flush()
	}
}

// addPart adds one part to the message being built.
func (b *aiBuilder) addPart(p *message.Part) {
	switch p.Type {
	case message.PartText:
		b.endResults()
		b.addText(p.Text)
	case message.PartReasoning:
		b.endResults()
		b.cur.ReasoningContent += p.Reasoning
		b.has = true
	case message.PartToolInvocation:
		ti := p.ToolInvocation
		switch {
		case ti == nil:
		case ti.State != message.ToolStateResult:
			b.endResults()
			b.addCall(ti)
		default:
			b.addResult(ti)
		}
	}
}

// addText appends text to the current message, text parts joined with "\n".
func (b *aiBuilder) addText(text string) {
	if b.has && b.cur.Content != "" && text != "" {
		b.cur.Content += "\n"
	}
	b.cur.Content += text
	b.has = true
}

// addCall adds a call to the current message, its exact stored form when
// the part was not rewritten since.
func (b *aiBuilder) addCall(ti *message.ToolInvocation) {
	if fn := b.exact.fn; fn != nil && ti.ToolCallID == fn.ID {
		f := fn.Function
		b.cur.FunctionCall = &f
	} else if tc, ok := b.exact.stored[ti.ToolCallID]; ok && sameCall(tc, ti) {
		b.cur.ToolCalls = append(b.cur.ToolCalls, tc)
	} else {
		b.cur.ToolCalls = append(b.cur.ToolCalls, llms.ToolCall{ID: ti.ToolCallID, Type: "function",
			FunctionCall: &llms.FunctionCall{Name: ti.ToolName, Arguments: jsonText(ti.Args)}})
	}
	b.emitted[ti.ToolCallID] = true
	b.has = true
}

// addResult queues a tool result, adding its call first when the call was
// not emitted yet so that the result follows it.
func (b *aiBuilder) addResult(ti *message.ToolInvocation) {
	if !b.emitted[ti.ToolCallID] {
		b.addMissingCall(ti)
	}
	b.queued = append(b.queued, b.resultMessage(ti))
}

// addMissingCall adds the call of a result whose call was not emitted; a
// legacy function result answers a FunctionCall, not a tool call.
func (b *aiBuilder) addMissingCall(ti *message.ToolInvocation) {
	if !b.function {
		b.addCall(ti)
		return
	}
	b.cur.FunctionCall = &llms.FunctionCall{Name: ti.ToolName, Arguments: jsonText(ti.Args)}
	b.emitted[ti.ToolCallID] = true
	b.has = true
}

// resultMessage is the chat message of a tool result: a FunctionChatMessage
// for a legacy function result, a ToolChatMessage otherwise.
func (b *aiBuilder) resultMessage(ti *message.ToolInvocation) llms.ChatMessage {
	content := jsonText(ti.Result)
	if ti.IsError && len(ti.Result) == 0 {
		content = ti.ErrorText
	}
	if b.function {
		return llms.FunctionChatMessage{Name: b.exact.fnName, Content: content}
	}
	id := ti.ToolCallID
	if b.exact.emptyResultID {
		id = ""
	}
	return llms.ToolChatMessage{ID: id, Content: content}
}

// sameCall reports whether a stored exact call still describes the part (the
// part was not rewritten since).
func sameCall(tc llms.ToolCall, ti *message.ToolInvocation) bool {
	if tc.FunctionCall == nil || tc.FunctionCall.Name == "" {
		return message.IsPlaceholderToolName(ti.ToolName) && (tc.FunctionCall == nil || sameJSON(argsJSON(tc.FunctionCall.Arguments), ti.Args))
	}
	return tc.FunctionCall.Name == ti.ToolName && sameJSON(argsJSON(tc.FunctionCall.Arguments), ti.Args)
}

// sameJSON compares two JSON values semantically (stores may reformat JSON).
func sameJSON(a, b json.RawMessage) bool {
	if len(bytes.TrimSpace(a)) == 0 || len(bytes.TrimSpace(b)) == 0 {
		return len(bytes.TrimSpace(a)) == len(bytes.TrimSpace(b))
	}
	if bytes.Equal(a, b) {
		return true
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return mustJSON(x) == mustJSON(y)
}
