package core

import (
	"context"
	"github.com/agentmem/agentmem/core/message"
	"log/slog"

	"github.com/agentmem/agentmem/core/internal/onceset"
)

// maxSkippedReported bounds the message ids a Memory remembers having
// warned about; beyond it, further stored messages with skipped parts are
// not reported (one warning says so).
const maxSkippedReported = 10_000

// skippedParts warns, once per message id for a Memory, about stored
// messages whose decoding dropped parts (message.Content.Skipped, e.g. null
// parts written by other clients): the message is used without them, and a
// row read on every turn would otherwise warn on every turn.
type skippedParts struct {
	set *onceset.Set
	log *slog.Logger
}

// Report warns about the messages of msgs with skipped parts not reported
// yet.
func (p *skippedParts) Report(ctx context.Context, msgs []message.Message) {
	for i := range msgs {
		msg := &msgs[i]
		if len(msg.Content.Skipped) == 0 || msg.ID == "" {
			continue
		}
		switch p.set.Add(msg.ID) {
		case onceset.Added:
			p.log.WarnContext(ctx, "agentmem: stored message has parts that could not be read; using it without them",
				"messageId", msg.ID, "threadId", msg.ThreadID, "skipped", msg.Content.Skipped)
		case onceset.Filled:
			p.log.WarnContext(ctx, "agentmem: stored messages with unreadable parts exceed the report limit; no longer reporting them",
				"limit", maxSkippedReported, "messageId", msg.ID, "threadId", msg.ThreadID, "skipped", msg.Content.Skipped)
		}
	}
}
