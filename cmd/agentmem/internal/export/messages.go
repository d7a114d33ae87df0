package export

import (
	"context"
	"github.com/agentmem/agentmem/core/message"
	"time"

	"github.com/agentmem/agentmem/core/store"
)

// PageSize is how many rows one store call reads while walking a thread.
const PageSize = 1000

// WalkMessages calls fn with the messages of a thread in chronological order,
// a page at a time. It pages by time (keyset), so it stays linear in the
// thread's length: each page starts at the last time seen and skips the
// messages of that time already delivered.
func WalkMessages(ctx context.Context, s *store.Checked, threadID string, fn func([]message.Message) error) error {
	var (
		start *time.Time // nil for the first page
		ties  int        // messages at *start already delivered
	)
	for {
		q := store.MessageQuery{ThreadID: threadID, PerPage: PageSize + ties}
		if start != nil {
			q.Range = store.DateRange{Start: start}
		}
		page, err := s.ListMessages(ctx, q)
		if err != nil {
			return err
		}
		msgs := page.Messages[min(ties, len(page.Messages)):]
		if len(msgs) > 0 {
			if err := fn(msgs); err != nil {
				return err
			}
		}
		if !page.HasMore || len(msgs) == 0 {
			return nil
		}
		// The page starts at *start, so every message of the page at the
		// last time has now been delivered.
		last := msgs[len(msgs)-1].CreatedAt
		ties = 0
		for _, m := range page.Messages {
			if m.CreatedAt.Equal(last) {
				ties++
			}
		}
		start = &last
	}
}
