package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/clierr"
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

The threads' semantic-recall vectors move too (deleted under the old
resource, re-indexed under the new one): in the index of --vector, or else
in the local index beside a SQLite database (memory.vectors beside
memory.db), as search finds it. Without a vector store, the moved messages
are recorded as unindexed, and the next write of the new resource or
"agentmem reindex" indexes them; the move stays unfinished until a run with
the vector store. A run stopped half-way (Ctrl-C, a crash) is finished by
running the same command again: threads already under --to whose move is
unfinished count as work and are reported.`,
		Example: `  agentmem --write move-thread thread-123 --to user-42
  agentmem --write --vector ./memory.vec move-thread --from guest-7 --to user-42`,
		ValidArgsFunction: a.completeThreads,
		RunE: func(cmd *cobra.Command, args []string) error {
			if to == "" {
				return clierr.Usage("--to RESOURCE is required")
			}
			if (len(args) == 0) == (from == "") {
				return clierr.Usage("give THREAD ids or --from, not both")
			}
			if err := a.requireWrite(); err != nil {
				return err
			}
			a.findVectors()
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
		return clierr.Usage("--to: %v", err)
	}
	threads, err := fromThreads(ctx, c, from, to)
	if err != nil {
		return err
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
	moved, finished, unfinished := 0, 0, 0
	for i, t := range threads {
		th, err := c.Memory.MoveThread(ctx, t.ID, to)
		if err != nil {
			bar.done()
			return fmt.Errorf("moved %d of %d threads: %w", moved, len(threads), err)
		}
		done := len(core.PendingMoveSources(th)) == 0
		switch {
		case t.ResourceID != to:
			moved++
		case done && len(core.PendingMoveSources(t)) > 0:
			finished++
		}
		if !done {
			unfinished++
		}
		bar.add(sizes[i])
	}
	bar.done()
	if a.flags.json {
		return writeJSON(a.stdout, map[string]any{"movedThreads": moved, "finishedMoves": finished, "unfinishedMoves": unfinished,
			"threads": len(threads), "messages": total, "to": to, "vectorsMoved": c.Vector != nil})
	}
	_, err = fmt.Fprintf(a.stdout, "moved %d threads (%d messages) to %s; %d already there\n", moved, total, to, len(threads)-moved)
	if err == nil && finished > 0 {
		_, err = fmt.Fprintf(a.stdout, "finished %d unfinished moves (vectors now under %s)\n", finished, to)
	}
	if err == nil && unfinished > 0 {
		_, err = fmt.Fprintf(a.stdout, "semantic-recall vectors of %d threads were not moved (no vector store: no --vector and no index beside the database): "+
			"the moves stay unfinished until a run with the vector store, and the messages wait as unindexed for the next write or \"agentmem reindex\"\n", unfinished)
	}
	return err
}

// fromThreads returns the threads of from (none without --from) and the
// threads of to whose unfinished move was from from: a run stopped
// half-way, or one without the vector store, left them to finish.
func fromThreads(ctx context.Context, c *connection, from, to string) ([]store.Thread, error) {
	if from == "" {
		return nil, nil
	}
	var out []store.Thread
	for _, res := range slices.Compact([]string{from, to}) {
		page, err := c.Store.ListThreads(ctx, store.ThreadQuery{ResourceID: res, PerPage: store.PerPageAll, Direction: store.Asc})
		if err != nil {
			return nil, err
		}
		for _, t := range page.Threads {
			if res == from || slices.Contains(core.PendingMoveSources(t), from) {
				out = append(out, t)
			}
		}
	}
	return out, nil
}
