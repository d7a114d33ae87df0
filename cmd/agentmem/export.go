package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/clierr"
	"github.com/agentmem/agentmem/cmd/agentmem/internal/export"
	"github.com/spf13/cobra"
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
				return clierr.Usage("give --resource or --thread, not both")
			}
			return a.withConn(cmd, func(ctx context.Context, c *connection) error {
				w, done, err := a.openOutput(out)
				if err != nil {
					return err
				}
				n, err := export.Write(ctx, c.Store, w, resource, thread)
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
		return nil, nil, clierr.Usage("%v", err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	return bw, func() error { return errors.Join(bw.Flush(), f.Close()) }, nil
}
