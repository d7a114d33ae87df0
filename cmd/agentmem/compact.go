package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/clierr"
	"github.com/agentmem/agentmem/core/store"

	"github.com/spf13/cobra"
)

// contentCompactor is a store that rewrites rows an earlier version stored
// in a longer shape (the SQLite and PostgreSQL stores' CompactContentWith).
type contentCompactor interface {
	CompactContentWith(ctx context.Context, opts store.CompactOptions) (int, error)
}

func (a *app) compactCmd() *cobra.Command {
	var batch int
	cmd := &cobra.Command{
		Use:   "compact",
		Short: "Rewrite messages stored by earlier versions in the current, shorter shape (needs --write)",
		Long: `Rewrite the messages an earlier version of agentmem stored in a longer shape
(with the derived v4 mirrors, or one text part as an object) in the shape
the store writes now. Messages read the same before and after; the rows get
smaller (the database file or table reuses the space). It works in
transactions of --batch rows, with a progress bar on a terminal: Ctrl-C
keeps the batches done, and running the command again rewrites only what is
left.`,
		Example: `  agentmem --write compact
  agentmem --write --db postgres://localhost/app compact --batch 2000`,
		Args: rangeArgs(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if batch < 0 {
				return clierr.Usage("--batch must be positive")
			}
			if err := a.requireWrite(); err != nil {
				return err
			}
			return a.withConn(cmd, func(ctx context.Context, c *connection) error {
				return a.compact(ctx, c, batch)
			})
		},
	}
	cmd.Flags().IntVar(&batch, "batch", 0, "rows per transaction (default 500)")
	return cmd
}

func (a *app) compact(ctx context.Context, c *connection, batch int) error {
	cc, ok := c.Store.Unwrap().(contentCompactor)
	if !ok {
		return clierr.Usage("the store of %s keeps no older shapes to compact", a.flags.db)
	}
	bar := a.newShareProgress("compact")
	shown := 0
	n, err := cc.CompactContentWith(ctx, store.CompactOptions{Batch: batch, Progress: func(p store.CompactProgress) {
		step := int(p.Fraction * shareSteps)
		bar.add(step - shown)
		shown = step
	}})
	bar.done()
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("interrupted after rewriting %d messages; run the same command to finish: %w", n, err)
	}
	if err != nil {
		return err
	}
	if a.flags.json {
		return writeJSON(a.stdout, map[string]any{"rewritten": n})
	}
	_, err = fmt.Fprintf(a.stdout, "rewrote %d messages in the current stored shape\n", n)
	return err
}
