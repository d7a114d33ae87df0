package inspector

import (
	"encoding/json"
	"github.com/agentmem/agentmem/core/message"
	"time"
)

// messageView is a message as a chat bubble.
type messageView struct {
	ID        string
	Role      string
	Type      string
	Source    string // prompt messages only
	CreatedAt time.Time
	Tokens    int
	Parts     []partView
	Metadata  string // the content's metadata as JSON, "" when none
	Excluded  bool   // at or before the thread's boundary
	Recalled  bool   // a semantic-recall hit (next-prompt view)
}

// partView is one part of a message, flattened for the template.
type partView struct {
	Kind     string // text, reasoning, tool, file, source, step or other
	Text     string
	Tool     *toolView
	FileName string
	FileType string
	FileSize int // length of the file's data as stored (base64, URL or id)
	URL      string
	Raw      string // an unknown part as JSON
}

// toolView is a tool call and its result.
type toolView struct {
	Name, CallID, State string
	Args, Result        string
	IsError             bool
	ErrorText           string
}

// viewMessage flattens a stored or prompt message.
func viewMessage(m message.Message) messageView {
	v := messageView{ID: m.ID, Role: string(m.Role), Type: m.Type, Source: string(m.Source),
		CreatedAt: m.CreatedAt, Tokens: m.Tokens, Metadata: jsonText(m.Content.Metadata)}
	for _, p := range m.Content.Parts {
		v.Parts = append(v.Parts, viewPart(p))
	}
	return v
}

func viewPart(p message.Part) partView {
	switch p.Type {
	case message.PartText:
		return partView{Kind: "text", Text: p.Text}
	case message.PartReasoning:
		text := p.Reasoning
		if text == "" { // redacted or detail-only reasoning
			for _, d := range p.Details {
				text += d.Text
			}
		}
		return partView{Kind: "reasoning", Text: text}
	case message.PartToolInvocation:
		if ti := p.ToolInvocation; ti != nil {
			return partView{Kind: "tool", Tool: &toolView{Name: ti.ToolName, CallID: ti.ToolCallID, State: ti.State,
				Args: prettyJSON(ti.Args), Result: prettyJSON(ti.Result), IsError: ti.IsError, ErrorText: ti.ErrorText}}
		}
	case message.PartFile:
		return partView{Kind: "file", FileName: p.Filename, FileType: p.MimeType, FileSize: len(p.Data)}
	case message.PartSource:
		if p.Source != nil {
			return partView{Kind: "source", Text: p.Source.Title, URL: p.Source.URL}
		}
	case message.PartStepStart:
		return partView{Kind: "step"}
	}
	raw, _ := json.MarshalIndent(p, "", "  ")
	return partView{Kind: "other", Text: p.Type, Raw: string(raw)}
}
