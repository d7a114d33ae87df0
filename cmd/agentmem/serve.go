package main

import (
	"context"
	"fmt"
	"net"
	"os"

	"github.com/spf13/cobra"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/inspector"
)

// serveCmd serves the memory inspector web page.
func (a *app) serveCmd() *cobra.Command {
	var addr, token string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the memory inspector: threads, the next prompt, recall, in a browser",
		Long: `serve runs the memory inspector, a small web app built into the binary:
the thread list, each thread as chat bubbles with the persisted boundary
drawn as a line and token counts, what the model will see next turn (a
read-only Begin drawn as a bar of where the tokens go), and a recall
playground. Pages refresh while an agent writes.

It binds loopback (` + inspector.DefaultAddr + `) by default and refuses any
other address unless --token is given (AGENTMEM_TOKEN); every request then
needs the token, as a bearer header or through the login form. It only reads
unless --write is given (then: edit working memory, delete threads).`,
		Example: `  agentmem serve
  agentmem --db postgres://localhost/app --vector index.bin serve --addr 127.0.0.1:8080
  AGENTMEM_TOKEN=s3cret agentmem serve --addr 0.0.0.0:7700`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			a.findVectors()
			return a.withConn(cmd, func(ctx context.Context, c *connection) error {
				return inspector.Serve(ctx, addr, inspector.Options{
					Memory: c.Memory, Store: c.Store,
					Vector: c.Vector, Embedder: c.Embedder, EmbeddingDimension: c.Dimension,
					Write: a.flags.write, Token: token,
					OnListen: func(l net.Addr) { fmt.Fprintf(a.stderr, "agentmem inspector on http://%s\n", l) },
				})
			})
		},
	}
	cmd.Flags().StringVar(&addr, "addr", inspector.DefaultAddr, "address to listen on")
	cmd.Flags().StringVar(&token, "token", os.Getenv("AGENTMEM_TOKEN"), "token every request must carry (env AGENTMEM_TOKEN); required off loopback")
	return cmd
}
