package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/spf13/cobra"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
)

func (a *app) exportCmd() *cobra.Command {
	var (
		resource, thread, out string
	)
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write memory as JSON Lines: everything, a resource or a thread",
		Long: `Write memory as JSON Lines: a header line, then for each resource its working
memory and metadata, each of its threads with the thread's messages (oldest
first), working memory and observations, then the resource's observations.

The output is canonical (sorted keys, UTC times at microsecond precision):
exporting the same memory from SQLite or PostgreSQL gives the same bytes, and
"agentmem import" reads it back with the same ids.`,
		Example: `  agentmem export > all.jsonl
  agentmem export --resource user-42 -o user-42.jsonl
  agentmem export --thread thread-123 | head`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if resource != "" && thread != "" {
				return usageErr("give --resource or --thread, not both")
			}
			return a.withConn(cmd, func(ctx context.Context, c *connection) error {
				w, done, err := a.openOutput(out)
				if err != nil {
					return err
				}
				n, err := exportTo(ctx, c.Store, w, resource, thread)
				if err = errors.Join(err, done()); err != nil {
					return err
				}
				if out != "" && !a.flags.json {
					fmt.Fprintf(a.stderr, "exported %d lines to %s\n", n, out)
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&resource, "resource", "", "only this resource")
	cmd.Flags().StringVar(&thread, "thread", "", "only this thread")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to this file instead of standard output")
	return cmd
}

// openOutput returns a buffered writer on the file (or stdout) and a function
// that flushes and closes it.
func (a *app) openOutput(path string) (io.Writer, func() error, error) {
	if path == "" || path == "-" {
		bw := bufio.NewWriterSize(a.stdout, 1<<20)
		return bw, bw.Flush, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, usageErr("%v", err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	return bw, func() error { return errors.Join(bw.Flush(), f.Close()) }, nil
}

// lineWriter writes records as canonical lines and counts them.
type lineWriter struct {
	w io.Writer
	n int
}

func (lw *lineWriter) put(r record) error {
	b, err := encodeRecord(r)
	if err != nil {
		return err
	}
	lw.n++
	_, err = lw.w.Write(append(b, '\n'))
	return err
}

// exportTo writes the selected memory to w and returns the number of lines.
func exportTo(ctx context.Context, s *store.Checked, w io.Writer, resourceID, threadID string) (int, error) {
	groups, err := selectThreads(ctx, s, resourceID, threadID)
	if err != nil {
		return 0, err
	}
	lw := &lineWriter{w: w}
	if err := lw.put(record{Kind: kindHeader, Version: formatVersion}); err != nil {
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
	threads []core.Thread
}

// selectThreads returns the threads to export grouped by resource, resources
// by id and threads by (CreatedAt, ID).
func selectThreads(ctx context.Context, s *store.Checked, resourceID, threadID string) ([]resourceThreads, error) {
	var threads []core.Thread
	if threadID != "" {
		t, err := s.GetThread(ctx, threadID)
		if err != nil {
			return nil, err
		}
		threads = []core.Thread{t}
	} else {
		page, err := s.ListThreads(ctx, store.ThreadQuery{ResourceID: resourceID, PerPage: store.PerPageAll, Direction: store.Asc})
		if err != nil {
			return nil, err
		}
		threads = page.Threads
	}
	byRes := map[string][]core.Thread{}
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
func addThreadlessResources(ctx context.Context, s *store.Checked, byRes map[string][]core.Thread) error {
	q := store.ResourceQuery{PerPage: store.MaxResourcePage}
	for {
		page, err := s.ListResources(ctx, q)
		if errors.Is(err, core.ErrUnsupported) {
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
func exportResource(ctx context.Context, s *store.Checked, lw *lineWriter, g resourceThreads, withResourceData bool) error {
	doc := resourceDoc{ID: g.id}
	if withResourceData {
		res, err := s.GetResource(ctx, g.id)
		switch {
		case errors.Is(err, core.ErrNotFound):
		case err != nil:
			return err
		default:
			doc.Metadata, doc.WorkingMemory = res.Metadata, res.WorkingMemory
		}
	}
	if err := lw.put(record{Kind: kindResource, Resource: &doc}); err != nil {
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
	return exportObservations(ctx, s, lw, store.ObservationKey(core.ScopeResource, "", g.id))
}

func exportThread(ctx context.Context, s *store.Checked, lw *lineWriter, t core.Thread) error {
	if err := lw.put(record{Kind: kindThread, Thread: &t}); err != nil {
		return err
	}
	err := walkMessages(ctx, s, t.ID, func(msgs []core.Message) error {
		for i := range msgs {
			if err := lw.put(record{Kind: kindMessage, Message: &msgs[i]}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	wm, err := s.GetWorkingMemory(ctx, core.ScopeThread, t.ID)
	if err != nil {
		return err
	}
	if wm.Version > 0 {
		if err := lw.put(record{Kind: kindWorkingMemory, WorkingMemory: &workingMemoryDoc{ThreadID: t.ID, Data: wm.Data}}); err != nil {
			return err
		}
	}
	return exportObservations(ctx, s, lw, store.ObservationKey(core.ScopeThread, t.ID, t.ResourceID))
}

// exportObservations writes the archived generations under key, oldest
// first, then the active record, when it holds anything (a cleared record,
// as a never-written one, is left out).
func exportObservations(ctx context.Context, s *store.Checked, lw *lineWriter, key string) error {
	cur, err := s.GetObservations(ctx, key)
	if err != nil || cur.Version == 0 || (cur.Observations == "" && cur.LastObservedAt.IsZero() && cur.Buffer.Empty()) {
		return err
	}
	gens, err := s.ListObservationGenerations(ctx, key)
	if err != nil {
		return err
	}
	for _, g := range gens {
		doc := newObservationDoc(g)
		doc.Archived = true
		if err := lw.put(record{Kind: kindObservations, Observations: &doc}); err != nil {
			return err
		}
	}
	doc := newObservationDoc(cur)
	return lw.put(record{Kind: kindObservations, Observations: &doc})
}
