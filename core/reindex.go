package core

import "context"

// ReindexResource rebuilds the semantic-recall vectors of every thread of a
// resource from storage (Reindex for each thread).
func (m *Memory) ReindexResource(ctx context.Context, resourceID string) error {
	if err := ValidateID("resourceId", resourceID); err != nil {
		return err
	}
	s, err := m.Store()
	if err != nil {
		return err
	}
	page, err := s.ListThreads(ctx, ThreadQuery{ResourceID: resourceID, PerPage: PerPageAll})
	if err != nil {
		return err
	}
	for _, th := range page.Threads {
		if err := m.Reindex(ctx, th.ID); err != nil {
			return err
		}
	}
	return nil
}
