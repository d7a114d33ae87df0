package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/clierr"
	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
)

// searchHit is one semantic-recall hit with the messages around it.
type searchHit struct {
	Score     float64           `json:"score"`
	MessageID string            `json:"messageId"`
	ThreadID  string            `json:"threadId"`
	Range     []message.Message `json:"range"`
}

func (a *app) searchCmd() *cobra.Command {
	var (
		topK, before, after int
		mode, filter        string
		minScore            float64
	)
	cmd := &cobra.Command{
		Use:   "search RESOURCE QUERY",
		Short: "Semantic recall: the best-matching messages of a resource, with scores",
		Long: `Query the semantic-recall index of a resource the way a turn does and print
each hit's score, thread and message, with the messages around it that recall
would add (--before/--after, the message range). It uses --vector, or else the
local index beside a SQLite database (memory.vectors beside memory.db, as the
quickstart writes them) or the pgvector tables of a PostgreSQL database, and, unless the vector store embeds itself, the same
--embedder that indexed the messages. The default mode is hybrid, as in a turn.
--filter keeps the hits whose message metadata matches a filter in Mastra's syntax.`,
		Example: `  agentmem search user-42 "sister's city"   # ./memory.db and ./memory.vectors
  agentmem --vector http://localhost:8080 search user-42 "refund policy" --mode vector --json
  agentmem search user-42 "deadline" --filter '{"projectId":"a","priority":{"$in":["high","urgent"]}}'`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			md, err := message.ParseFilterJSON(filter)
			if err != nil {
				return clierr.Usage("--filter: %v", err)
			}
			a.findVectors()
			return a.withConn(cmd, func(ctx context.Context, c *connection) error {
				q := vector.Query{Text: args[1], Keywords: c.Memory.Analyzer().Analyze(args[1]), TopK: topK,
					Filter: vector.Filter{ResourceID: args[0], Metadata: md}, MinScore: minScore, Mode: mode}
				hits, err := search(ctx, c, q, core.MessageRange{Before: before, After: after})
				if err != nil {
					return err
				}
				return a.printHits(hits)
			})
		},
	}
	f := cmd.Flags()
	f.IntVar(&topK, "top-k", 4, "number of hits")
	f.IntVar(&before, "before", 1, "messages before each hit")
	f.IntVar(&after, "after", 1, "messages after each hit")
	f.StringVar(&mode, "mode", vector.SearchHybrid, "hybrid, vector or bm25")
	f.Float64Var(&minScore, "min-score", 0, "drop hits below this score")
	f.StringVar(&filter, "filter", "", `keep hits whose message metadata matches this filter (Mastra's syntax, JSON: '{"projectId":"a"}')`)
	_ = cmd.RegisterFlagCompletionFunc("mode", cobra.FixedCompletions([]string{vector.SearchVector, vector.SearchHybrid, vector.SearchBM25}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// search queries the index and loads each hit's message range; chunks of one
// message count once, at their best score. A hit whose message the store no
// longer has under the resource (deleted, or moved to another resource
// while its vector record stayed) is left out: nothing of one resource is
// returned for another.
func search(ctx context.Context, c *connection, q vector.Query, r core.MessageRange) ([]searchHit, error) {
	if c.Vector == nil {
		return nil, noVectorStore("search")
	}
	if err := store.ValidateID("resourceId", q.Filter.ResourceID); err != nil {
		return nil, err
	}
	if q.TopK <= 0 || r.Before < 0 || r.After < 0 {
		return nil, clierr.Usage("--top-k must be positive, --before and --after not negative")
	}
	// A resource indexed under another embedding dimension would find
	// nothing here: say so, with the repair.
	if err := c.Memory.CheckIndex(ctx, q.Filter.ResourceID); err != nil {
		return nil, err
	}
	if !c.Vector.SelfEmbedding() && q.Mode != vector.SearchBM25 {
		vecs, err := c.Embedder.Embed(ctx, []string{q.Text})
		if err != nil {
			return nil, err
		}
		q.Vector = vecs[0]
	}
	if q.Mode == vector.SearchHybrid {
		q.Alpha = core.DefaultHybridAlpha
	}
	raw, err := c.Vector.Query(ctx, vector.IndexName(c.Dimension), q)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var hits []searchHit
	for _, h := range raw {
		if seen[h.Meta.MessageID] {
			continue
		}
		seen[h.Meta.MessageID] = true
		page, err := c.Store.ListMessages(ctx, store.MessageQuery{
			ThreadID: h.Meta.ThreadID, ResourceID: q.Filter.ResourceID,
			Include: []store.Include{{ID: h.Meta.MessageID, Before: r.Before, After: r.After}},
		})
		if err != nil {
			return nil, err
		}
		if !slices.ContainsFunc(page.Included, func(m message.Message) bool {
			return m.ID == h.Meta.MessageID && m.ResourceID == q.Filter.ResourceID
		}) {
			continue
		}
		hits = append(hits, searchHit{Score: h.Score, MessageID: h.Meta.MessageID, ThreadID: h.Meta.ThreadID, Range: page.Included})
	}
	return hits, nil
}

func (a *app) printHits(hits []searchHit) error {
	if a.flags.json {
		if hits == nil {
			hits = []searchHit{}
		}
		return writeJSON(a.stdout, map[string]any{"hits": hits})
	}
	for i, h := range hits {
		fmt.Fprintf(a.stdout, "%d. score %.4f  thread %s  message %s\n", i+1, h.Score, h.ThreadID, h.MessageID)
		t := newTable(a.stdout)
		for _, m := range h.Range {
			mark := " "
			if m.ID == h.MessageID {
				mark = ">"
			}
			t.row("  "+mark, timeText(m.CreatedAt), string(m.Role), oneLine(partLines(m)[0], 80))
		}
		if err := t.flush(); err != nil {
			return err
		}
	}
	if len(hits) == 0 {
		fmt.Fprintln(a.stdout, "no hits")
	} else {
		fmt.Fprintln(a.stdout, strconv.Itoa(len(hits))+" hits")
	}
	return nil
}
