package eino

import (
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/agentmem/agentmem/core"
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
