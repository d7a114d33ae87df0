// Package transcript holds the text conventions shared by everything that
// shows stored messages to a model inside a prompt (the other-thread recall
// block, title and observer transcripts) and reads its reply: role labels,
// one line per message, escaped fences, and reasoning stripped from replies.
package transcript

import (
	"regexp"
	"strings"

	"github.com/agentmem/agentmem/core/message"
)

// RoleLabel is the capitalised role ("User", "Assistant") that prefixes a
// message in a transcript.
func RoleLabel(r message.Role) string {
	if r == "" {
		return ""
	}
	return strings.ToUpper(string(r[:1])) + string(r[1:])
}

// lineBreakEncoder writes every line break as visible escape text.
var lineBreakEncoder = strings.NewReplacer(
	"\r\n", `\r\n`, "\n", `\n`, "\r", `\r`, "\v", `\v`, "\f", `\f`,
	"\u0085", `\u0085`, "\u2028", `\u2028`, "\u2029", `\u2029`,
)

// EncodeLineBreaks makes stored text one line, so that one message renders
// as exactly one entry of a fenced list (the other-thread recall block, the
// observer's transcript): a message cannot add a line that looks like
// another message, whatever it contains. Fence characters are escaped by the
// caller.
func EncodeLineBreaks(s string) string { return lineBreakEncoder.Replace(s) }

var fenceEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// EscapeFence escapes stored text so it cannot close a fence or open a tag.
func EscapeFence(s string) string { return fenceEscaper.Replace(s) }

var reasoningRE = regexp.MustCompile(`(?s)<think>.*?</think>|<reasoning>.*?</reasoning>`)

// StripReasoning removes the reasoning blocks (<think>, <reasoning>) that
// some models put before their answer.
func StripReasoning(s string) string { return reasoningRE.ReplaceAllString(s, "") }
