package main

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/clierr"
	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
)

func (a *app) reindexCmd() *cobra.Command {
	var restart bool
	cmd := &cobra.Command{
		Use:   "reindex [RESOURCE]",
		Short: "Rebuild the semantic-recall index of a resource or of everything (needs --write)",
		Long: `Rebuild the semantic-recall vectors of every thread of RESOURCE (or of every
resource) from storage, retrying the messages recorded as unindexed first.
Needs --vector and the embedder the index should use. A progress bar shows
messages per second and the time left; Ctrl-C stops after the current thread
and running the same command again resumes after the threads already done
(--restart starts over). Into pgvector, a reindex of at least 1,000 messages
and half the records the index holds builds the approximate index once,
after the records (searches meanwhile are exact).`,
		Example: `  agentmem --write --vector ./memory.vectors reindex
  agentmem --write --vector http://localhost:8080 reindex user-42`,
		Args: rangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			a.findVectors()
			if err := a.requireWrite(); err != nil {
				return err
			}
			resource := ""
			if len(args) == 1 {
				resource = args[0]
			}
			return a.withConn(cmd, func(ctx context.Context, c *connection) error {
				return a.reindex(ctx, c, resource, restart)
			})
		},
	}
	cmd.Flags().BoolVar(&restart, "restart", false, "ignore the progress of an interrupted run")
	return cmd
}

func (a *app) reindex(ctx context.Context, c *connection, resourceID string, restart bool) error {
	if c.Vector == nil {
		return noVectorStore("reindex")
	}
	page, err := c.Store.ListThreads(ctx, store.ThreadQuery{ResourceID: resourceID, PerPage: store.PerPageAll, Direction: store.Asc})
	if err != nil {
		return err
	}
	cp, st, err := openCheckpoint(restart, "reindex", a.flags.db, a.flags.pgSchema, a.flags.vector, vector.IndexName(c.Dimension), resourceID)
	if err != nil {
		return err
	}
	todo, sizes, total, err := pendingThreads(ctx, c.Store, page.Threads, st.Threads)
	if err != nil {
		return err
	}
	build := func(context.Context) error { return nil }
	if d, ok := c.Vector.(indexDeferrer); ok {
		if build, err = d.DeferIndex(ctx, vector.IndexName(c.Dimension), total); err != nil {
			return err
		}
	}
	bar := a.newProgress(int64(total), "reindex")
	c.builds.watch(bar.showGraph("reindex"))
	defer c.builds.watch(nil)
	indexed := 0
	var refused core.IndexFailure // messages refused on their own: reported at the end
	for i, t := range todo {
		if err := refused.Merge(c.Memory.Reindex(ctx, t.ID)); err != nil {
			bar.done()
			if ctx.Err() == nil {
				err = errors.Join(err, build(ctx))
			}
			if errors.Is(err, context.Canceled) {
				return fmt.Errorf("interrupted after %d of %d threads; run the same command to resume: %w", i, len(todo), err)
			}
			return err
		}
		st.Threads = append(st.Threads, t.ID)
		if err := cp.save(st); err != nil {
			return err
		}
		bar.add(sizes[i])
		indexed += sizes[i]
	}
	bar.describe("reindex (building the approximate index)")
	err = build(ctx)
	bar.done()
	if err != nil {
		return err
	}
	if err := cp.clear(); err != nil {
		return err
	}
	unindexed, err := c.Memory.Unindexed(ctx, resourceID)
	if err != nil {
		return err
	}
	if a.flags.json {
		err = writeJSON(a.stdout, map[string]any{"threads": len(todo), "skipped": len(page.Threads) - len(todo), "messages": indexed, "unindexed": unindexed, "index": vector.IndexName(c.Dimension)})
	} else {
		_, err = fmt.Fprintf(a.stdout, "reindexed %d threads (%d messages) into %s; %d already done earlier; %d messages still unindexed\n",
			len(todo), indexed, vector.IndexName(c.Dimension), len(page.Threads)-len(todo), unindexed)
	}
	if err != nil {
		return err
	}
	return refused.Result()
}

// indexDeferrer is a vector store that builds its approximate index after a
// large load faster than it inserts the load into it
// (pgvector.Store.DeferIndex).
type indexDeferrer interface {
	DeferIndex(ctx context.Context, index string, records int) (build func(context.Context) error, err error)
}

// pendingThreads returns the threads not in done, their message counts and
// the sum of those.
func pendingThreads(ctx context.Context, s *store.Checked, threads []store.Thread, done []string) ([]store.Thread, []int, int, error) {
	var (
		todo  []store.Thread
		sizes []int
		total int
	)
	for _, t := range threads {
		if slices.Contains(done, t.ID) {
			continue
		}
		n, err := countMessages(ctx, s, t.ID)
		if err != nil {
			return nil, nil, 0, err
		}
		todo, sizes, total = append(todo, t), append(sizes, n), total+n
	}
	return todo, sizes, total, nil
}

func (a *app) deleteThreadCmd() *cobra.Command {
	var resource string
	cmd := &cobra.Command{
		Use:   "delete-thread [THREAD...]",
		Short: "Delete threads with their messages, vectors and observations (needs --write)",
		Long: `Delete the given threads, or every thread of --resource, with their messages,
their semantic-recall vectors (when --vector is given) and their
observational memory. Every named thread must exist, or nothing is deleted.
Ctrl-C stops between threads; running the command again finishes the rest.`,
		Example: `  agentmem --write delete-thread thread-123
  agentmem --write --vector ./memory.vectors delete-thread --resource user-42`,
		ValidArgsFunction: a.completeThreads,
		RunE: func(cmd *cobra.Command, args []string) error {
			a.findVectors()
			if (len(args) == 0) == (resource == "") {
				return clierr.Usage("give THREAD ids or --resource, not both")
			}
			if err := a.requireWrite(); err != nil {
				return err
			}
			return a.withConn(cmd, func(ctx context.Context, c *connection) error {
				return a.deleteThreads(ctx, c, args, resource)
			})
		},
	}
	cmd.Flags().StringVar(&resource, "resource", "", "delete every thread of this resource")
	return cmd
}

func (a *app) deleteThreads(ctx context.Context, c *connection, ids []string, resourceID string) error {
	var threads []store.Thread
	if resourceID != "" {
		page, err := c.Store.ListThreads(ctx, store.ThreadQuery{ResourceID: resourceID, PerPage: store.PerPageAll, Direction: store.Asc})
		if err != nil {
			return err
		}
		threads = page.Threads
	}
	for _, id := range ids {
		t, err := c.Store.GetThread(ctx, id)
		if err != nil {
			return err
		}
		threads = append(threads, t)
	}
	_, sizes, total, err := pendingThreads(ctx, c.Store, threads, nil)
	if err != nil {
		return err
	}
	bar := a.newProgress(int64(total), "delete")
	for i, t := range threads {
		if err := c.Memory.DeleteThread(ctx, t.ID); err != nil {
			bar.done()
			return fmt.Errorf("deleted %d of %d threads: %w", i, len(threads), err)
		}
		bar.add(sizes[i])
	}
	bar.done()
	if a.flags.json {
		return writeJSON(a.stdout, map[string]any{"deletedThreads": len(threads), "deletedMessages": total})
	}
	_, err = fmt.Fprintf(a.stdout, "deleted %d threads (%d messages)\n", len(threads), total)
	return err
}
