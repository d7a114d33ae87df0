package main

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
)

// statsDoc is what stats reports.
type statsDoc struct {
	Threads   int `json:"threads"`
	Resources int `json:"resources"`
	Messages  int `json:"messages"`
	Tokens    int `json:"tokens"`
	// TokenEncodings counts messages by the encoding of their stored count.
	TokenEncodings map[string]int `json:"tokenEncodings"`
	// Unindexed counts messages waiting for an indexing retry.
	Unindexed int `json:"unindexed"`
	// Index is the semantic-recall index (nil without --vector).
	Index *indexDoc `json:"index"`
}

type indexDoc struct {
	Name          string `json:"name"`
	Dimension     int    `json:"dimension"`
	SelfEmbedding bool   `json:"selfEmbedding"`
}

func (a *app) statsCmd() *cobra.Command {
	var resource string
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Count threads, messages, tokens and unindexed messages",
		Long: `Count threads, resources, messages and stored tokens (by encoding), the
messages still waiting to be indexed for semantic recall, and name the index
and dimension that the configured --vector and --embedder use.`,
		Example: `  agentmem stats
  agentmem stats --resource user-42 --json`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			a.findVectors()
			return a.withConn(cmd, func(ctx context.Context, c *connection) error {
				doc, err := collectStats(ctx, c, resource)
				if err != nil {
					return err
				}
				return a.printStats(doc)
			})
		},
	}
	cmd.Flags().StringVar(&resource, "resource", "", "only this resource")
	return cmd
}

func collectStats(ctx context.Context, c *connection, resourceID string) (statsDoc, error) {
	doc := statsDoc{TokenEncodings: map[string]int{}}
	page, err := c.Store.ListThreads(ctx, store.ThreadQuery{ResourceID: resourceID, PerPage: store.PerPageAll})
	if err != nil {
		return doc, err
	}
	resources := map[string]bool{}
	for _, t := range page.Threads {
		resources[t.ResourceID] = true
		err := walkMessages(ctx, c.Store, t.ID, func(msgs []core.Message) error {
			for _, m := range msgs {
				doc.Messages++
				doc.Tokens += m.Tokens
				doc.TokenEncodings[m.TokenEncoding]++
			}
			return nil
		})
		if err != nil {
			return doc, err
		}
	}
	doc.Threads, doc.Resources = len(page.Threads), len(resources)
	if doc.Unindexed, err = c.Memory.Unindexed(ctx, resourceID); err != nil {
		return doc, err
	}
	if c.Vector != nil {
		doc.Index = &indexDoc{Name: vector.IndexName(c.Dimension), Dimension: c.Dimension, SelfEmbedding: c.Vector.SelfEmbedding()}
	}
	return doc, nil
}

func (a *app) printStats(doc statsDoc) error {
	if a.flags.json {
		return writeJSON(a.stdout, doc)
	}
	t := newTable(a.stdout)
	t.row("threads", strconv.Itoa(doc.Threads))
	t.row("resources", strconv.Itoa(doc.Resources))
	t.row("messages", strconv.Itoa(doc.Messages))
	t.row("tokens", strconv.Itoa(doc.Tokens))
	encs := make([]string, 0, len(doc.TokenEncodings))
	for e := range doc.TokenEncodings {
		encs = append(encs, e)
	}
	sort.Strings(encs)
	for _, e := range encs {
		t.row("  "+orDash(e), fmt.Sprintf("%d messages", doc.TokenEncodings[e]))
	}
	t.row("unindexed", strconv.Itoa(doc.Unindexed))
	if doc.Index == nil {
		t.row("index", "- (no --vector)")
	} else {
		dim := strconv.Itoa(doc.Index.Dimension)
		if doc.Index.Dimension == 0 {
			dim = "set by the embedder"
		}
		t.row("index", fmt.Sprintf("%s (dimension %s)", doc.Index.Name, dim))
	}
	return t.flush()
}
