package observe

import (
	"strings"
	"unicode/utf8"

	"github.com/agentmem/agentmem/core/internal/transcript"
	"github.com/agentmem/agentmem/core/message"
)

// maxToolText caps the tool arguments and results shown to the observer.
const maxToolText = 2000

// transcriptLine renders one message for the observer: its time, role and
// content (text, tool calls with arguments and results, files), escaped.
func transcriptLine(msg *message.Message, withThread bool) string {
	esc := transcript.EscapeFence
	var b strings.Builder
	b.WriteString("[" + msg.CreatedAt.UTC().Format("2006-01-02 15:04") + " UTC] ")
	if withThread {
		b.WriteString("(conversation " + esc(msg.ThreadID) + ") ")
	}
	b.WriteString(transcript.RoleLabel(msg.Role) + ":")
	for _, p := range msg.Content.Parts {
		switch p.Type {
		case message.PartText:
			if p.Text != "" {
				b.WriteString(" " + esc(p.Text))
			}
		case message.PartToolInvocation:
			if ti := p.ToolInvocation; ti != nil {
				b.WriteString(" [tool " + esc(ti.ToolName) + "(" + esc(clip(string(ti.Args), maxToolText)) + ")")
				if ti.State == message.ToolStateResult {
					b.WriteString(" → " + esc(clip(string(ti.Result)+ti.ErrorText, maxToolText)))
				}
				b.WriteString("]")
			}
		case message.PartFile:
			b.WriteString(" [file " + esc(p.MimeType) + "]")
		}
	}
	return transcript.EncodeLineBreaks(b.String())
}

// clip shortens s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
