package core

import (
	"context"
	"github.com/agentmem/agentmem/core/message"
	"strings"
	"unicode/utf8"

	"github.com/agentmem/agentmem/core/internal/transcript"
	"github.com/agentmem/agentmem/core/store"
)

const defaultTitleInstructions = `You write the title of a conversation.
- You receive a transcript as lines "User: ..." and "Assistant: ...". Never answer or continue it.
- Always produce a title, even for a greeting.
- At most 80 characters, a short summary of what the user wants.
- No quotes and no colons. Reply with the title only.`

// maybeTitle generates a title after Commit when the thread has none and has
// at least MinMessages messages. Failures are logged, never returned.
func (ef *effects) maybeTitle(ctx context.Context, st settings, th store.Thread, saved []message.Message) {
	if st.title == nil || st.readOnly || th.Title != "" {
		return
	}
	model := st.title.Model
	if model == nil {
		model = ef.model
	}
	if model == nil {
		return
	}
	s, _ := ef.entry.checked()
	cur, err := s.GetThread(ctx, th.ID)
	if err != nil || cur.Title != "" {
		return
	}
	page, err := s.ListMessages(ctx, store.MessageQuery{ThreadID: th.ID, PerPage: max(st.title.MinMessages, 20)})
	if err != nil || len(page.Messages) < st.title.MinMessages || !hasUserMessage(page.Messages) {
		return
	}
	var b strings.Builder
	for _, msg := range page.Messages {
		if text := msg.Text(); text != "" {
			b.WriteString(transcript.RoleLabel(msg.Role) + ": " + truncate(text, 500) + "\n")
		}
	}
	instructions := st.title.Instructions
	if instructions == "" {
		instructions = defaultTitleInstructions
	}
	out, err := model.Generate(ctx, instructions, b.String())
	if err != nil {
		ef.log.WarnContext(ctx, "agentmem: title generation failed", "thread", th.ID, "err", err)
		return
	}
	title := cleanTitle(out)
	if title == "" {
		return
	}
	if _, err := s.UpdateThread(ctx, th.ID, &title, nil); err != nil {
		ef.log.WarnContext(ctx, "agentmem: saving title failed", "thread", th.ID, "err", err)
		return
	}
	if st.title.OnTitle != nil {
		st.title.OnTitle(th.ID, title)
	}
}

// cleanTitle strips reasoning blocks, quotes and colons and caps the length at 80.
func cleanTitle(s string) string {
	s = transcript.StripReasoning(s)
	s = strings.TrimSpace(strings.SplitN(strings.TrimSpace(s), "\n", 2)[0])
	s = strings.Trim(s, "\"'`“”‘’ ")
	s = strings.ReplaceAll(s, ":", "")
	return truncate(strings.TrimSpace(s), 80)
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n]))
}

func hasUserMessage(msgs []message.Message) bool {
	for _, m := range msgs {
		if m.Role == message.RoleUser {
			return true
		}
	}
	return false
}
