// Package export writes agentmem's export format: memory as canonical JSON
// Lines (format.go), which "agentmem export" writes and "agentmem import"
// reads back with the same ids.
package export

import (
	"context"
	"errors"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"io"
	"sort"

	"github.com/agentmem/agentmem/core/store"
)

// Writer writes records as canonical lines and counts them.
type Writer struct {
	w io.Writer
	n int
}

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Put writes r as one line.
func (lw *Writer) Put(r Record) error {
	b, err := Encode(r)
	if err != nil {
		return err
	}
	lw.n++
	_, err = lw.w.Write(append(b, '\n'))
	return err
}

// Write writes the memory of resourceID, of threadID, or all of it (both
// "") to w and returns the number of lines.
func Write(ctx context.Context, s *store.Checked, w io.Writer, resourceID, threadID string) (int, error) {
	groups, err := selectThreads(ctx, s, resourceID, threadID)
	if err != nil {
		return 0, err
	}
	lw := NewWriter(w)
	if err := lw.Put(Record{Kind: KindHeader, Version: FormatVersion}); err != nil {
		return lw.n, err
	}
	for _, g := range groups {
		if err := exportResource(ctx, s, lw, g, threadID == ""); err != nil {
			return lw.n, err
		}
	}
	return lw.n, nil
}

// resourceThreads is a resource and its threads, oldest first.
type resourceThreads struct {
	id      string
	threads []store.Thread
}

// selectThreads returns the threads to export grouped by resource, resources
// by id and threads by (CreatedAt, ID).
func selectThreads(ctx context.Context, s *store.Checked, resourceID, threadID string) ([]resourceThreads, error) {
	var threads []store.Thread
	if threadID != "" {
		t, err := s.GetThread(ctx, threadID)
		if err != nil {
			return nil, err
		}
		threads = []store.Thread{t}
	} else {
		page, err := s.ListThreads(ctx, store.ThreadQuery{ResourceID: resourceID, PerPage: store.PerPageAll, Direction: store.Asc})
		if err != nil {
			return nil, err
		}
		threads = page.Threads
	}
	byRes := map[string][]store.Thread{}
	for _, t := range threads {
		byRes[t.ResourceID] = append(byRes[t.ResourceID], t)
	}
	if resourceID != "" && len(byRes) == 0 {
		byRes[resourceID] = nil // a resource without threads still has working memory
	}
	if resourceID == "" && threadID == "" {
		if err := addThreadlessResources(ctx, s, byRes); err != nil {
			return nil, err
		}
	}
	out := make([]resourceThreads, 0, len(byRes))
	for id, ts := range byRes {
		sort.SliceStable(ts, func(i, j int) bool {
			if !ts[i].CreatedAt.Equal(ts[j].CreatedAt) {
				return ts[i].CreatedAt.Before(ts[j].CreatedAt)
			}
			return ts[i].ID < ts[j].ID
		})
		out = append(out, resourceThreads{id: id, threads: ts})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out, nil
}

// addThreadlessResources adds to byRes the resources that have working
// memory or metadata but no thread, so exporting everything loses nothing.
// A store without store.ResourceLister exports the resources of its threads.
func addThreadlessResources(ctx context.Context, s *store.Checked, byRes map[string][]store.Thread) error {
	q := store.ResourceQuery{PerPage: store.MaxResourcePage}
	for {
		page, err := s.ListResources(ctx, q)
		if errors.Is(err, memerr.ErrUnsupported) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, r := range page.Resources {
			if _, ok := byRes[r.ID]; !ok {
				byRes[r.ID] = nil
			}
		}
		if !page.HasMore {
			return nil
		}
		q.After = page.Resources[len(page.Resources)-1].ID
	}
}

// exportResource writes one resource; withResourceData adds its working
// memory, metadata and observations (not for a single-thread export).
func exportResource(ctx context.Context, s *store.Checked, lw *Writer, g resourceThreads, withResourceData bool) error {
	doc := ResourceDoc{ID: g.id}
	if withResourceData {
		res, err := s.GetResource(ctx, g.id)
		switch {
		case errors.Is(err, memerr.ErrNotFound):
		case err != nil:
			return err
		default:
			doc.Metadata, doc.WorkingMemory = res.Metadata, res.WorkingMemory
		}
	}
	if err := lw.Put(Record{Kind: KindResource, Resource: &doc}); err != nil {
		return err
	}
	for _, t := range g.threads {
		if err := exportThread(ctx, s, lw, t); err != nil {
			return err
		}
	}
	if !withResourceData {
		return nil
	}
	return exportObservations(ctx, s, lw, store.ObservationKey(store.ScopeResource, "", g.id))
}

func exportThread(ctx context.Context, s *store.Checked, lw *Writer, t store.Thread) error {
	if err := lw.Put(Record{Kind: KindThread, Thread: &t}); err != nil {
		return err
	}
	err := WalkMessages(ctx, s, t.ID, func(msgs []message.Message) error {
		for i := range msgs {
			if err := lw.Put(Record{Kind: KindMessage, Message: &msgs[i]}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	wm, err := s.GetWorkingMemory(ctx, store.ScopeThread, t.ID)
	if err != nil {
		return err
	}
	if wm.Version > 0 {
		if err := lw.Put(Record{Kind: KindWorkingMemory, WorkingMemory: &WorkingMemoryDoc{ThreadID: t.ID, Data: wm.Data}}); err != nil {
			return err
		}
	}
	return exportObservations(ctx, s, lw, store.ObservationKey(store.ScopeThread, t.ID, t.ResourceID))
}

// exportObservations writes the archived generations under key, oldest
// first, then the active Record, when it holds anything (a cleared Record,
// as a never-written one, is left out).
func exportObservations(ctx context.Context, s *store.Checked, lw *Writer, key string) error {
	cur, err := s.GetObservations(ctx, key)
	if err != nil || cur.Version == 0 || (cur.Observations == "" && cur.LastObservedAt.IsZero() && cur.Buffer.Empty()) {
		return err
	}
	gens, err := s.ListObservationGenerations(ctx, key)
	if err != nil {
		return err
	}
	for _, g := range gens {
		doc := NewObservationDoc(g)
		doc.Archived = true
		if err := lw.Put(Record{Kind: KindObservations, Observations: &doc}); err != nil {
			return err
		}
	}
	doc := NewObservationDoc(cur)
	return lw.Put(Record{Kind: KindObservations, Observations: &doc})
}
