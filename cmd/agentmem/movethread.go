package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
)

func (a *app) moveThreadCmd() *cobra.Command {
	var from, to string
	cmd := &cobra.Command{
		Use:   "move-thread [THREAD...] --to RESOURCE",
		Short: "Move threads to another resource, with their messages and vectors (needs --write)",
		Long: `Move the given threads, or every thread of --from, to the resource --to: a
guest's conversations become the signed-in user's. Each thread and all of
its messages change owner in one atomic write; the thread keeps its
creation time, title, metadata, thread working memory and observations.
Resource working memory and resource observations are not merged: --from
keeps its own and --to keeps its own.

With --vector, the threads' semantic-recall vectors move too (deleted under
the old resource, re-indexed under the new one). Without it, the moved
messages are recorded as unindexed, and the next write of the new resource
or "agentmem reindex" indexes them. A run stopped half-way (Ctrl-C, a crash)
is finished by running the same command again.`,
		Example: `  agentmem --write move-thread thread-123 --to user-42
  agentmem --write --vector ./memory.vec move-thread --from guest-7 --to user-42`,
		ValidArgsFunction: a.completeThreads,
		RunE: func(cmd *cobra.Command, args []string) error {
			if to == "" {
				return usageErr("--to RESOURCE is required")
			}
			if (len(args) == 0) == (from == "") {
				return usageErr("give THREAD ids or --from, not both")
			}
			if err := a.requireWrite(); err != nil {
				return err
			}
			return a.withConn(cmd, func(ctx context.Context, c *connection) error {
				return a.moveThreads(ctx, c, args, from, to)
			})
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "move every thread of this resource")
	cmd.Flags().StringVar(&to, "to", "", "the resource that owns the threads afterwards")
	return cmd
}

func (a *app) moveThreads(ctx context.Context, c *connection, ids []string, from, to string) error {
	if err := store.ValidateID("resourceId", to); err != nil {
		return usageErr("--to: %v", err)
	}
	var threads []core.Thread
	if from != "" {
		page, err := c.Store.ListThreads(ctx, store.ThreadQuery{ResourceID: from, PerPage: store.PerPageAll, Direction: store.Asc})
		if err != nil {
			return err
		}
		threads = page.Threads
	}
	for _, id := range ids {
		t, err := c.Store.GetThread(ctx, id) // every named thread must exist before anything moves
		if err != nil {
			return err
		}
		threads = append(threads, t)
	}
	_, sizes, total, err := pendingThreads(ctx, c.Store, threads, nil)
	if err != nil {
		return err
	}
	bar := a.newProgress(int64(total), "move")
	moved := 0
	for i, t := range threads {
		if _, err := c.Memory.MoveThread(ctx, t.ID, to); err != nil {
			bar.done()
			return fmt.Errorf("moved %d of %d threads: %w", moved, len(threads), err)
		}
		if t.ResourceID != to {
			moved++
		}
		bar.add(sizes[i])
	}
	bar.done()
	if a.flags.json {
		return writeJSON(a.stdout, map[string]any{"movedThreads": moved, "threads": len(threads), "messages": total,
			"to": to, "vectorsMoved": c.Vector != nil})
	}
	_, err = fmt.Fprintf(a.stdout, "moved %d threads (%d messages) to %s; %d already there\n", moved, total, to, len(threads)-moved)
	if err == nil && c.Vector == nil && moved > 0 {
		_, err = fmt.Fprintln(a.stdout, "semantic-recall vectors were not moved (no --vector): the messages wait as unindexed for the next write or \"agentmem reindex\"")
	}
	return err
}
