package core

import "context"

// ReindexResource rebuilds the semantic-recall vectors of every thread of a
// resource from storage: it retries the resource's recorded unindexed
// messages first, then reindexes each thread (see Reindex).
func (m *Memory) ReindexResource(ctx context.Context, resourceID string) error {
	if err := ValidateID("resourceId", resourceID); err != nil {
		return err
	}
	s, err := m.open(ctx, "ReindexResource")
	if err != nil {
		return err
	}
	st, err := m.settings(nil)
	if err != nil {
		return err
	}
	if st.recall == nil {
		return nil
	}
	if err := m.retryUnindexed(ctx, s, st, resourceID); err != nil {
		return err
	}
	page, err := s.ListThreads(ctx, ThreadQuery{ResourceID: resourceID, PerPage: PerPageAll})
	if err != nil {
		return err
	}
	for _, th := range page.Threads {
		if err := m.reindexThread(ctx, s, st, th.ID); err != nil {
			return err
		}
	}
	return nil
}
