package eino

import (
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/agentmem/agentmem/core/message"
)

// ToEino converts format-2 messages to eino messages for a model. Messages
// that came from FromEino are restored exactly. Other messages are mapped by
// role: text parts become Content (joined by "\n"), reasoning parts
// ReasoningContent, file parts multi-content parts, and a tool-invocation part
// in state "result" becomes a ToolCall of the assistant message followed by a
// schema.Tool message with its result. A tool result whose call is not earlier
// in msgs gets that call first, so every tool message follows its call. Signal
// messages become user messages; source and step-start parts are dropped. A
// message with an id carries it in Extra[ExtraIDKey].
func ToEino(msgs []message.Message) []*schema.Message {
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
func MessageToEino(msg message.Message) []*schema.Message {
	return messageToEino(&msg, map[string]bool{}, false)
}

// messageToEino converts one message; emitted records the ids of the tool
// calls already output, and synthesize makes a tool result whose call is not
// among them get that call first.
func messageToEino(m *message.Message, emitted map[string]bool, synthesize bool) []*schema.Message {
	meta := readMeta(&m.Content)
	if meta == nil {
		meta = &msgMeta{}
	}
	main := &schema.Message{
		Role:         roleToEino(m.Role),
		Name:         meta.Name,
		ResponseMeta: cloneResponseMeta(meta.ResponseMeta),
		Extra:        extraToEino(meta.Extra, m.ID),
	}
	content, tools := splitParts(m.Content.Parts)
	if !applyLayout(main, meta.Layout, content) {
		defaultContent(main, content)
	}
	if meta.Role == string(schema.Tool) {
		if res := firstResult(tools); res != nil {
			return toolMessageToEino(main, res, meta.Tool, emitted, synthesize)
		}
	}
	return withToolCalls(main, tools, meta.Calls, emitted)
}

// roleToEino maps a format-2 role; eino has no signal role, so signals go to
// the model as user messages.
func roleToEino(r message.Role) schema.RoleType {
	switch r {
	case message.RoleUser, message.RoleSignal:
		return schema.User
	case message.RoleSystem:
		return schema.System
	default:
		return schema.Assistant
	}
}

// cloneResponseMeta copies rm so the result does not share it with the
// metadata; nil for nil.
func cloneResponseMeta(rm *schema.ResponseMeta) *schema.ResponseMeta {
	if rm == nil {
		return nil
	}
	c := *rm
	return &c
}

// extraToEino rebuilds Extra from the stored entries plus the message id
// under ExtraIDKey; nil when there is neither.
func extraToEino(stored map[string]any, id string) map[string]any {
	if len(stored) == 0 && id == "" {
		return nil
	}
	extra := make(map[string]any, len(stored)+1)
	for k, v := range stored {
		extra[k] = v
	}
	if id != "" {
		extra[ExtraIDKey] = id
	}
	return extra
}

// splitParts separates the content parts (text, reasoning, file) from the
// tool invocations; other parts are dropped.
func splitParts(parts []message.Part) ([]*message.Part, []*message.ToolInvocation) {
	var content []*message.Part
	var tools []*message.ToolInvocation
	for i := range parts {
		p := &parts[i]
		switch {
		case p.Type == message.PartToolInvocation && p.ToolInvocation != nil:
			tools = append(tools, p.ToolInvocation)
		case p.Type == message.PartText, p.Type == message.PartReasoning, p.Type == message.PartFile:
			content = append(content, p)
		}
	}
	return content, tools
}

// firstResult is the first invocation in state "result", or nil.
func firstResult(tools []*message.ToolInvocation) *message.ToolInvocation {
	for _, ti := range tools {
		if ti.State == message.ToolStateResult {
			return ti
		}
	}
	return nil
}

// toolMessageToEino turns main into the tool message of res, restoring the
// fields kept in tm. When synthesize is set and the call was not emitted yet,
// the call comes first, so the tool message follows its call.
func toolMessageToEino(main *schema.Message, res *message.ToolInvocation, tm *toolMeta, emitted map[string]bool, synthesize bool) []*schema.Message {
	var out []*schema.Message
	if synthesize && !emitted[res.ToolCallID] {
		out = append(out, &schema.Message{Role: schema.Assistant, ToolCalls: []schema.ToolCall{callFromCore(res, nil)}})
	}
	emitted[res.ToolCallID] = true
	main.Role = schema.Tool
	main.ToolCallID = res.ToolCallID
	main.ToolName = res.ToolName
	if tm != nil {
		if tm.NoID {
			main.ToolCallID = ""
		}
		if tm.ToolName != nil {
			main.ToolName = *tm.ToolName
		}
	}
	main.Content = resultText(res)
	return append(out, main)
}

// withToolCalls adds a ToolCall to main per invocation (restoring the fields
// kept in calls) and returns main followed by a tool message per result.
func withToolCalls(main *schema.Message, tools []*message.ToolInvocation, calls map[string]callMeta, emitted map[string]bool) []*schema.Message {
	var results []*schema.Message
	for _, ti := range tools {
		var cm *callMeta
		if c, ok := calls[ti.ToolCallID]; ok {
			cm = &c
		}
		main.ToolCalls = append(main.ToolCalls, callFromCore(ti, cm))
		emitted[ti.ToolCallID] = true
		if ti.State == message.ToolStateResult {
			results = append(results, &schema.Message{Role: schema.Tool, ToolCallID: ti.ToolCallID, ToolName: ti.ToolName, Content: resultText(ti)})
		}
	}
	// eino reads ToolCalls on assistant messages only (schema.Message).
	if main.Role != schema.Assistant && len(main.ToolCalls) > 0 {
		main.Role = schema.Assistant
	}
	return append([]*schema.Message{main}, results...)
}

func callFromCore(ti *message.ToolInvocation, cm *callMeta) schema.ToolCall {
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
func applyLayout(main *schema.Message, layout []layoutEntry, content []*message.Part) bool {
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
		var cp *message.Part
		if !e.Inline {
			cp = content[next]
			next++
		}
		switch e.F {
		case "reasoning":
			if cp == nil || cp.Type != message.PartReasoning {
				return false
			}
			msg.ReasoningContent = cp.Reasoning
		case "content":
			if cp == nil || cp.Type != message.PartText {
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
func defaultContent(main *schema.Message, content []*message.Part) {
	var texts, reasoning []string
	files := false
	for _, p := range content {
		switch p.Type {
		case message.PartText:
			texts = append(texts, p.Text)
		case message.PartReasoning:
			reasoning = append(reasoning, p.Reasoning)
		case message.PartFile:
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
		case message.PartText:
			if main.Role == schema.User {
				main.UserInputMultiContent = append(main.UserInputMultiContent, schema.MessageInputPart{Type: schema.ChatMessagePartTypeText, Text: p.Text})
			} else {
				main.AssistantGenMultiContent = append(main.AssistantGenMultiContent, schema.MessageOutputPart{Type: schema.ChatMessagePartTypeText, Text: p.Text})
			}
		case message.PartFile:
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
func fileCommon(p *message.Part) schema.MessagePartCommon {
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
