package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/clierr"
	"github.com/agentmem/agentmem/core/vector/weaviate"
)

// maintainCmd groups the maintenance of a vector server.
func (a *app) maintainCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "maintain",
		Short: "Maintain the vector server (needs --write)",
		Args:  rangeArgs(0, 0),
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.weaviateTenantsCmd())
	return cmd
}

func (a *app) weaviateTenantsCmd() *cobra.Command {
	var (
		idle   time.Duration
		status string
		batch  int
	)
	cmd := &cobra.Command{
		Use:   "weaviate-tenants",
		Short: "Set the Weaviate tenants nobody wrote to lately inactive (needs --write)",
		Long: `Set every active tenant (one per resource) of the --vector Weaviate's classes
with the address's prefix, whose newest write is older than --idle, to
INACTIVE (or OFFLOADED with --status, which needs an offload module on the
server). An inactive tenant keeps its data on disk but holds no open files
and no memory; the next read or write of the resource activates it again,
so nothing else has to change. --idle 0 retires every active tenant.

Stores opened by the library do the same for the tenants they used (the
sweeper of weaviate.Config.TenantIdle); this command covers servers shared
by processes that were stopped, or that run with the sweeper off.`,
		Example: `  agentmem --write --vector http://localhost:8080 maintain weaviate-tenants
  agentmem --write --vector 'http://localhost:8080?prefix=Agentmem' maintain weaviate-tenants --idle 0 --json`,
		Args: rangeArgs(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if idle < 0 {
				return clierr.Usage("--idle must not be negative")
			}
			if batch < 0 {
				return clierr.Usage("--batch must be positive")
			}
			status = strings.ToUpper(status)
			if status != weaviate.TenantInactive && status != weaviate.TenantOffloaded {
				return clierr.Usage("--status %q: want %s or %s", status, weaviate.TenantInactive, weaviate.TenantOffloaded)
			}
			if err := a.requireWrite(); err != nil {
				return err
			}
			if !strings.HasPrefix(a.flags.vector, "http://") && !strings.HasPrefix(a.flags.vector, "https://") {
				return clierr.Usage("maintain weaviate-tenants needs --vector http(s)://host:port of a Weaviate server")
			}
			return a.retireTenants(cmd.Context(), idle, status, batch)
		},
	}
	cmd.Flags().DurationVar(&idle, "idle", weaviate.DefaultTenantIdleAfter, "retire tenants whose newest write is older than this")
	cmd.Flags().StringVar(&status, "status", weaviate.TenantInactive, "the status of retired tenants: INACTIVE or OFFLOADED")
	cmd.Flags().IntVar(&batch, "batch", weaviate.DefaultTenantBatch, "tenants per status update request")
	return cmd
}

// classRetired is what weaviate-tenants did to one class.
type classRetired struct {
	Class string `json:"class"`
	weaviate.SweepResult
}

func (a *app) retireTenants(ctx context.Context, idle time.Duration, status string, batch int) error {
	cfg, err := weaviateConfig(a.flags.vector)
	if err != nil {
		return err
	}
	cfg.TenantIdle.After = -1 // this run retires; no sweeper besides
	s, err := weaviate.New(ctx, cfg)
	if err != nil {
		return err
	}
	defer s.Close()
	classes, err := s.Classes(ctx)
	if err != nil {
		return err
	}
	out := []classRetired{}
	for _, class := range classes {
		res, err := s.RetireIdle(ctx, class, idle, status, batch)
		out = append(out, classRetired{Class: class, SweepResult: res})
		if err != nil {
			return err
		}
	}
	if a.flags.json {
		return writeJSON(a.stdout, map[string]any{"status": status, "idle": idle.String(), "classes": out})
	}
	if len(out) == 0 {
		_, err = fmt.Fprintln(a.stdout, "no multi-tenant class with this prefix")
		return err
	}
	for _, c := range out {
		if _, err := fmt.Fprintf(a.stdout, "%s: %d active tenants, %d set %s, %d in use\n",
			c.Class, c.Checked, c.Retired, status, c.Busy); err != nil {
			return err
		}
	}
	return nil
}
