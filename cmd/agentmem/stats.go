package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"maps"
	"slices"
	"sort"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/export"
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
	// Unindexed counts messages semantic recall misses: those waiting for
	// an indexing retry, and every message of a resource indexed under
	// another embedding dimension (Index.Mismatch).
	Unindexed int `json:"unindexed"`
	// Index is the semantic-recall index (nil without --vector).
	Index *indexDoc `json:"index"`
}

type indexDoc struct {
	Name          string `json:"name"`
	Dimension     int    `json:"dimension"`
	SelfEmbedding bool   `json:"selfEmbedding"`
	// Mismatch names a resource indexed under another embedding dimension
	// and the repair (core.ErrEmbeddingDimensionMismatch); "" when none is.
	Mismatch string `json:"mismatch,omitempty"`
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
	resources := map[string]int{} // messages per resource
	for _, t := range page.Threads {
		resources[t.ResourceID] += 0 // a resource of empty threads counts too
		err := export.WalkMessages(ctx, c.Store, t.ID, func(msgs []message.Message) error {
			for _, m := range msgs {
				resources[t.ResourceID]++
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
		err = countMismatched(ctx, c, resources, &doc)
	}
	return doc, err
}

// countMismatched adds to doc.Unindexed the messages of the resources
// indexed under another embedding dimension (less those already counted as
// waiting for a retry), and names the first in doc.Index.Mismatch.
func countMismatched(ctx context.Context, c *connection, resources map[string]int, doc *statsDoc) error {
	for _, res := range slices.Sorted(maps.Keys(resources)) {
		mismatch := c.Memory.CheckIndex(ctx, res)
		if !errors.Is(mismatch, memerr.ErrEmbeddingDimensionMismatch) {
			if mismatch != nil {
				return mismatch
			}
			continue
		}
		waiting, err := c.Memory.Unindexed(ctx, res)
		if err != nil {
			return err
		}
		doc.Unindexed += resources[res] - waiting
		if doc.Index.Mismatch == "" {
			doc.Index.Mismatch = mismatch.Error()
		}
	}
	return nil
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
		if doc.Index.Mismatch != "" {
			t.row("mismatch", doc.Index.Mismatch)
		}
	}
	return t.flush()
}
