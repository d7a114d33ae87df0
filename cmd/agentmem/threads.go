package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/clierr"
	"github.com/agentmem/agentmem/core/store"
)

// withConn runs fn on a connection opened from the global flags.
func (a *app) withConn(cmd *cobra.Command, fn func(ctx context.Context, c *connection) error) error {
	ctx := cmd.Context()
	c, err := connect(ctx, a.flags)
	if err != nil {
		return err
	}
	err = fn(ctx, c)
	if cerr := c.Close(); err == nil {
		err = cerr
	}
	return err
}

// threadRow is a thread as threads prints it.
type threadRow struct {
	store.Thread
	Messages int `json:"messages"`
}

func (a *app) threadsCmd() *cobra.Command {
	var (
		q   store.ThreadQuery
		asc bool
	)
	cmd := &cobra.Command{
		Use:   "threads",
		Short: "List threads, newest first",
		Long: `List threads with their resource, title, message count and times.

Filter by --resource; page with --page and --per-page; sort by createdAt
(default) or updatedAt with --sort, newest first unless --asc.`,
		Example: `  agentmem threads --resource user-42
  agentmem threads --sort updatedAt --per-page 20 --page 1
  agentmem threads --json | jq -r '.threads[].id'`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if asc {
				q.Direction = store.Asc
			}
			return a.withConn(cmd, func(ctx context.Context, c *connection) error {
				return a.listThreads(ctx, c, q)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&q.ResourceID, "resource", "", "only threads of this resource")
	f.IntVar(&q.Page, "page", 0, "page number, from 0")
	f.IntVar(&q.PerPage, "per-page", 50, "threads per page")
	f.StringVar(&q.OrderBy, "sort", "createdAt", "createdAt or updatedAt")
	f.BoolVar(&asc, "asc", false, "oldest first")
	_ = cmd.RegisterFlagCompletionFunc("sort", cobra.FixedCompletions([]string{"createdAt", "updatedAt"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func (a *app) listThreads(ctx context.Context, c *connection, q store.ThreadQuery) error {
	if q.PerPage <= 0 {
		return clierr.Usage("--per-page must be positive")
	}
	page, err := c.Memory.ListThreads(ctx, q)
	if err != nil {
		return err
	}
	rows := make([]threadRow, len(page.Threads))
	for i, t := range page.Threads {
		n, err := countMessages(ctx, c.Store, t.ID)
		if err != nil {
			return err
		}
		rows[i] = threadRow{Thread: t, Messages: n}
	}
	if a.flags.json {
		return writeJSON(a.stdout, map[string]any{"threads": rows, "total": page.Total, "page": page.Page, "perPage": page.PerPage, "hasMore": page.HasMore})
	}
	t := newTable(a.stdout, "THREAD", "RESOURCE", "MESSAGES", "CREATED", "UPDATED", "TITLE")
	for _, r := range rows {
		t.row(idCell(r.ID), idCell(r.ResourceID), strconv.Itoa(r.Messages), timeText(r.CreatedAt), timeText(r.UpdatedAt), orDash(oneLine(r.Title, 60)))
	}
	if err := t.flush(); err != nil {
		return err
	}
	more := ""
	if page.HasMore {
		more = fmt.Sprintf("; next: --page %d", page.Page+1)
	}
	_, err = fmt.Fprintf(a.stdout, "%d of %d threads (page %d)%s\n", len(rows), page.Total, page.Page, more)
	return err
}

// countMessages returns the number of messages of a thread.
func countMessages(ctx context.Context, s *store.Checked, threadID string) (int, error) {
	page, err := s.ListMessages(ctx, store.MessageQuery{ThreadID: threadID, PerPage: 0, IncludeTotal: true})
	return page.Total, err
}

// metadataText prints metadata as compact JSON ("-" when empty).
func metadataText(m map[string]any) string {
	if len(m) == 0 {
		return "-"
	}
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Sprint(m)
	}
	return string(b)
}
