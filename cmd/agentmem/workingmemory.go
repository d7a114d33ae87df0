package main

import (
	"context"
	"fmt"
	"github.com/agentmem/agentmem/core/store"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/clierr"
)

// wmTarget is the --thread / --resource choice of working-memory commands.
type wmTarget struct{ thread, resource string }

func (t wmTarget) scope() (store.Scope, string, error) {
	switch {
	case t.thread != "" && t.resource != "":
		return "", "", clierr.Usage("give --thread or --resource, not both")
	case t.thread != "":
		return store.ScopeThread, t.thread, nil
	case t.resource != "":
		return store.ScopeResource, t.resource, nil
	}
	return "", "", clierr.Usage("give --thread THREAD or --resource RESOURCE")
}

func (t *wmTarget) flags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&t.thread, "thread", "", "thread-scoped working memory of this thread")
	cmd.Flags().StringVar(&t.resource, "resource", "", "resource-scoped working memory of this resource")
}

func (a *app) workingMemoryCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "working-memory",
		Aliases: []string{"wm"},
		Short:   "Read or replace working memory",
		Long: `Working memory is the notes the model keeps about a resource (resource scope,
the default of agentmem) or a thread (thread scope) through the
updateWorkingMemory tool. "get" prints it; "set" replaces it (needs --write).`,
	}
	cmd.AddCommand(a.wmGetCmd(), a.wmSetCmd())
	return cmd
}

func (a *app) wmGetCmd() *cobra.Command {
	var target wmTarget
	cmd := &cobra.Command{
		Use:     "get (--thread THREAD | --resource RESOURCE)",
		Short:   "Print working memory",
		Example: "  agentmem working-memory get --resource user-42",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			scope, id, err := target.scope()
			if err != nil {
				return err
			}
			return a.withConn(cmd, func(ctx context.Context, c *connection) error {
				wm, err := c.Store.GetWorkingMemory(ctx, scope, id)
				if err != nil {
					return err
				}
				if a.flags.json {
					return writeJSON(a.stdout, map[string]any{"scope": scope, "id": id, "data": wm.Data, "version": wm.Version, "updatedAt": wm.UpdatedAt})
				}
				if wm.Version == 0 {
					_, err = fmt.Fprintf(a.stdout, "(no working memory stored for %s %s)\n", scope, id)
					return err
				}
				_, err = fmt.Fprintln(a.stdout, strings.TrimRight(wm.Data, "\n"))
				return err
			})
		},
	}
	target.flags(cmd)
	return cmd
}

func (a *app) wmSetCmd() *cobra.Command {
	var target wmTarget
	cmd := &cobra.Command{
		Use:   "set (--thread THREAD | --resource RESOURCE) [TEXT | -]",
		Short: "Replace working memory (needs --write)",
		Long: `Replace working memory with TEXT, or with standard input when TEXT is "-" or
missing. The write is a compare-and-set on the stored version: a concurrent
change by an agent fails it (MEMORY_CONFLICT) instead of being overwritten.`,
		Example: `  agentmem --write working-memory set --resource user-42 "# About the user
- **Name**: Ada"
  agentmem --write wm set --thread thread-123 - < notes.md`,
		Args: rangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			scope, id, err := target.scope()
			if err != nil {
				return err
			}
			if err := a.requireWrite(); err != nil {
				return err
			}
			data, err := a.argOrStdin(args)
			if err != nil {
				return err
			}
			return a.withConn(cmd, func(ctx context.Context, c *connection) error {
				cur, err := c.Store.GetWorkingMemory(ctx, scope, id)
				if err != nil {
					return err
				}
				wm, err := c.Store.PutWorkingMemory(ctx, scope, id, data, cur.Version)
				if err != nil {
					return err
				}
				if a.flags.json {
					return writeJSON(a.stdout, map[string]any{"scope": scope, "id": id, "version": wm.Version})
				}
				_, err = fmt.Fprintf(a.stdout, "working memory of %s %s set (version %d)\n", scope, id, wm.Version)
				return err
			})
		},
	}
	target.flags(cmd)
	return cmd
}

// argOrStdin returns args[0], or standard input when it is "-" or absent.
func (a *app) argOrStdin(args []string) (string, error) {
	if len(args) == 1 && args[0] != "-" {
		return args[0], nil
	}
	b, err := io.ReadAll(a.stdin)
	if err != nil {
		return "", err
	}
	return string(b), nil
}
