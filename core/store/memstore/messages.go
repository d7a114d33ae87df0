package memstore

import (
	"context"
	"slices"
	"sort"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// SaveMessages implements store.Store.
func (s *Store) SaveMessages(ctx context.Context, msgs []message.Message) ([]message.Message, error) {
	const op = "SaveMessages"
	s.mu.Lock()
	defer s.mu.Unlock()
	// Validate the whole batch before writing anything. An id repeated in
	// the batch is checked against its earlier occurrence too.
	batchOwner := make(map[string]string, len(msgs))
	for i := range msgs {
		m := &msgs[i]
		if old, ok := s.messages[m.ID]; ok && old.ResourceID != m.ResourceID {
			return nil, memerr.Errorf(memerr.CodeResourceMismatch, op, "message %q belongs to another resource", m.ID)
		}
		if owner, ok := batchOwner[m.ID]; ok && owner != m.ResourceID {
			return nil, memerr.Errorf(memerr.CodeResourceMismatch, op, "message %q belongs to another resource", m.ID)
		}
		batchOwner[m.ID] = m.ResourceID
		t, ok := s.threads[m.ThreadID]
		if !ok {
			return nil, memerr.Errorf(memerr.CodeThreadNotFound, op, "Thread %s not found", m.ThreadID)
		}
		if t.ResourceID != m.ResourceID {
			return nil, memerr.Errorf(memerr.CodeResourceMismatch, op,
				"thread %q belongs to resource %q, not %q", m.ThreadID, t.ResourceID, m.ResourceID)
		}
	}
	out := make([]message.Message, len(msgs))
	touched := map[string]bool{}
	for i, in := range msgs {
		m := in.Clone()
		m.Source = ""
		m.CreatedAt = m.CreatedAt.UTC().Truncate(time.Microsecond)
		if old, ok := s.messages[m.ID]; ok {
			m.CreatedAt, m.Seq = old.CreatedAt, old.Seq
			s.unlink(old)
			touched[old.ThreadID] = true
		} else {
			s.seq++
			m.Seq = s.seq
			row := s.threads[m.ThreadID]
			row.Boundary = store.PullBack(row.Boundary, m.CreatedAt)
		}
		stored := &m
		s.messages[m.ID] = stored
		s.link(stored)
		touched[m.ThreadID] = true
		out[i] = m.Clone()
	}
	for id := range touched {
		if row, ok := s.threads[id]; ok {
			s.touch(row)
		}
	}
	return out, nil
}

// firstUnseen is the earliest CreatedAt of the thread's messages with a Seq
// above seen (zero when none); see store.ClampBoundary.
func (s *Store) firstUnseen(threadID string, seen int64) time.Time {
	var first time.Time
	for _, m := range s.byThread[threadID] {
		if m.Seq > seen && (first.IsZero() || m.CreatedAt.Before(first)) {
			first = m.CreatedAt
		}
	}
	return first
}

func (s *Store) link(m *message.Message) {
	list := s.byThread[m.ThreadID]
	i := sort.Search(len(list), func(i int) bool { return message.Less(m, list[i]) })
	s.byThread[m.ThreadID] = slices.Insert(list, i, m)
}

func (s *Store) unlink(m *message.Message) {
	list := s.byThread[m.ThreadID]
	for i, x := range list {
		if x.ID == m.ID {
			s.byThread[m.ThreadID] = slices.Delete(list, i, i+1)
			return
		}
	}
}

// ListMessages implements store.Store.
func (s *Store) ListMessages(ctx context.Context, q store.MessageQuery) (store.MessagePage, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	list := s.byThread[q.ThreadID]
	excluded := idSet(q.ExcludeIDs)
	var matched []*message.Message
	for _, m := range list {
		if (q.ResourceID != "" && m.ResourceID != q.ResourceID) || excluded[m.ID] {
			continue
		}
		if !q.Range.InRange(m.CreatedAt) {
			continue
		}
		if q.Before != nil && !message.Less(m, &message.Message{CreatedAt: q.Before.CreatedAt, Seq: q.Before.Seq}) {
			continue
		}
		if !q.Metadata.Match(m.Content.Metadata) {
			continue
		}
		matched = append(matched, m)
	}
	if q.Direction == store.Desc {
		slices.Reverse(matched)
	}
	var page store.MessagePage
	if q.IncludeTotal {
		page.Total = len(matched)
	}
	var listed []*message.Message
	switch q.PerPage {
	case 0:
	case store.PerPageAll:
		listed = matched
	default:
		lo, hi := pageBounds(q.Page, q.PerPage, len(matched))
		listed = matched[lo:hi]
		page.HasMore = hi < len(matched)
	}
	seen := map[string]bool{}
	for _, m := range listed {
		page.Messages = append(page.Messages, m.Clone())
		seen[m.ID] = true
	}
	page.Included = s.includes(q, seen)
	return page, nil
}

// idSet is the set of ids (nil for none).
func idSet(ids []string) map[string]bool {
	if len(ids) == 0 {
		return nil
	}
	set := make(map[string]bool, len(ids))
	for _, id := range ids {
		set[id] = true
	}
	return set
}

func (s *Store) includes(q store.MessageQuery, seen map[string]bool) []message.Message {
	var out []message.Message
	for _, inc := range q.Include {
		target, ok := s.messages[inc.ID]
		if !ok || (q.ResourceID != "" && target.ResourceID != q.ResourceID) {
			continue
		}
		list := s.byThread[target.ThreadID]
		idx := slices.Index(list, target)
		lo := idx - min(inc.Before, idx)
		hi := idx + 1 + min(inc.After, len(list)-idx-1)
		for _, m := range list[lo:hi] {
			if !seen[m.ID] {
				seen[m.ID] = true
				out = append(out, m.Clone())
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return message.Less(&out[i], &out[j]) })
	return out
}

// GetMessages implements store.Store.
func (s *Store) GetMessages(ctx context.Context, ids []string) ([]message.Message, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []message.Message
	seen := map[string]bool{}
	for _, id := range ids {
		if m, ok := s.messages[id]; ok && !seen[id] {
			seen[id] = true
			out = append(out, m.Clone())
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return message.Less(&out[i], &out[j]) })
	return out, nil
}

// DeleteMessages implements store.Store.
func (s *Store) DeleteMessages(ctx context.Context, ids []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		m, ok := s.messages[id]
		if !ok {
			continue
		}
		s.unlink(m)
		delete(s.messages, id)
		delete(s.unindexed, id)
		if row, ok := s.threads[m.ThreadID]; ok {
			s.touch(row)
		}
	}
	return nil
}

// ListWindow implements store.WindowReader. Messages are held decoded; the
// rows the window does not select come back without content, as from SQL
// stores, found by the same store.DecodeWindow on their stored form.
func (s *Store) ListWindow(ctx context.Context, q store.MessageQuery, fit store.WindowFit) (store.WindowPage, error) {
	q.Include, q.IncludeTotal = nil, false
	page, err := s.ListMessages(ctx, q)
	if err != nil {
		return store.WindowPage{}, err
	}
	held := make(map[string]message.Content, len(page.Messages))
	stored := make([][]byte, len(page.Messages))
	for i := range page.Messages {
		m := &page.Messages[i]
		held[m.ID], m.Content = m.Content, message.Content{}
		if stored[i], err = message.MarshalStored(held[m.ID]); err != nil {
			return store.WindowPage{}, err
		}
	}
	bare, err := store.DecodeWindow(fit, page.Messages, stored, func(m *message.Message, _ []byte) error {
		m.Content = held[m.ID]
		return nil
	})
	return store.WindowPage{MessagePage: page, Bare: bare}, err
}
