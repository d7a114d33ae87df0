package core

import "strings"

// lineBreakEncoder writes every line break as visible escape text.
var lineBreakEncoder = strings.NewReplacer(
	"\r\n", `\r\n`, "\n", `\n`, "\r", `\r`, "\v", `\v`, "\f", `\f`,
	"\u0085", `\u0085`, "\u2028", `\u2028`, "\u2029", `\u2029`,
)

// encodeLineBreaks makes stored text one line, so that one message renders
// as exactly one entry of a fenced list (the other-thread recall block, the
// observer's transcript): a message cannot add a line that looks like
// another message, whatever it contains. Fence characters are escaped by the
// caller.
func encodeLineBreaks(s string) string { return lineBreakEncoder.Replace(s) }
