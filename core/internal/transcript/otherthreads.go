package transcript

import (
	"fmt"
	"html"
	"sort"
	"strings"

	"github.com/agentmem/agentmem/core/message"
)

// OtherThreads renders recalled messages of other threads as the text of
// one system message. Message text is escaped so it cannot close the fence or
// forge prompt structure.
func OtherThreads(msgs []message.Message) string {
	sort.SliceStable(msgs, func(i, j int) bool {
		if !msgs[i].CreatedAt.Equal(msgs[j].CreatedAt) {
			return msgs[i].CreatedAt.Before(msgs[j].CreatedAt)
		}
		return msgs[i].ThreadID < msgs[j].ThreadID
	})
	var b strings.Builder
	b.WriteString("The following messages were remembered from a different conversation:\n<remembered_from_other_conversation>\n")
	day := ""
	for _, msg := range msgs {
		if d := msg.CreatedAt.UTC().Format("2006, Jan, 2"); d != day {
			day = d
			fmt.Fprintf(&b, "\nthe following messages are from %s\n", d)
		}
		fmt.Fprintf(&b, "Message from previous conversation at %s: %s: %s\n",
			msg.CreatedAt.UTC().Format("3:04 PM UTC"), RoleLabel(msg.Role), EncodeLineBreaks(html.EscapeString(msg.Text())))
	}
	b.WriteString("<end_remembered_from_other_conversation>")
	return b.String()
}
