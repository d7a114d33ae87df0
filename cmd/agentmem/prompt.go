package main

import (
	"context"
	"fmt"
	"github.com/agentmem/agentmem/core/message"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/clierr"
	"github.com/agentmem/agentmem/cmd/agentmem/internal/inspector"
	"github.com/agentmem/agentmem/core/budget"
)

// promptMessage is one message of the prompt as prompt prints it.
type promptMessage struct {
	message.Message
	Source message.Source `json:"source"`
	Tokens int            `json:"tokens"`
}

func (a *app) promptCmd() *cobra.Command {
	var (
		r      inspector.PromptRequest
		system []string
	)
	cmd := &cobra.Command{
		Use:   "prompt THREAD",
		Short: "Show exactly what the model would see next turn (read-only)",
		Long: `Build the next turn's prompt of a thread exactly as Memory.Begin does, in
read-only mode (nothing is saved, the boundary does not move): history after
the persisted boundary within --last and --max-tokens, working memory with
--working-memory, semantic recall when a vector index is found (--vector, or
memory.vectors beside memory.db), and the --input message. Each message is
printed with its source (system, memory, context, input) and token count,
then the total as the budget counts it and the configuration used.

Without --max-tokens the budget is the one the thread's boundary was set
under (none if it has no boundary), as on the inspector's prompt page: both
build the prompt the same way and show the same messages and counts.`,
		Example: `  agentmem prompt thread-123 --max-tokens 8000
  agentmem prompt thread-123 --input "What did we decide?"`,
		Args:              exactArgs(1),
		ValidArgsFunction: a.completeThreads,
		RunE: func(cmd *cobra.Command, args []string) error {
			a.findVectors()
			if r.Budget < 0 || r.Remove < -1 || r.Last < 0 {
				return clierr.Usage("--max-tokens, --remove and --last must not be negative")
			}
			r.System = system
			return a.withConn(cmd, func(ctx context.Context, c *connection) error {
				th, err := c.Store.GetThread(ctx, args[0])
				if err != nil {
					return err
				}
				r.Thread = th
				fromBoundary := !cmd.Flags().Changed("max-tokens") && r.BoundaryBudget()
				return a.prompt(ctx, c, r, fromBoundary)
			})
		},
	}
	f := cmd.Flags()
	f.IntVar(&r.Budget, "max-tokens", 0, "token budget of the whole prompt (default: the budget of the thread's boundary; 0: no budget)")
	f.IntVar(&r.Remove, "remove", -1, "tokens trimmed beyond the budget when it is exceeded (default: 25% of the budget)")
	f.IntVar(&r.Last, "last", 0, "at most this many history messages (default: 10 without a budget, no cap with one)")
	f.StringVar(&r.Input, "input", "", "the user's next message")
	f.StringArrayVar(&system, "system", nil, "a system instruction (repeatable)")
	f.BoolVar(&r.WorkingMemory, "working-memory", false, "include working memory, as an agent with working memory on sees it")
	return cmd
}

// promptConfig describes the configuration a prompt was built with.
type promptConfig struct {
	Budget        int    `json:"budget"`
	Remove        int    `json:"remove,omitempty"`
	BudgetFrom    string `json:"budgetFrom"`
	Last          int    `json:"last,omitempty"`
	WorkingMemory bool   `json:"workingMemory"`
	Recall        bool   `json:"semanticRecall"`
}

func (p promptConfig) String() string {
	s := "no budget"
	if p.Budget > 0 {
		s = fmt.Sprintf("budget %d tokens (%s)", p.Budget, p.BudgetFrom)
		if p.Remove > 0 {
			s += fmt.Sprintf(", trim %d", p.Remove)
		}
	}
	if p.Last > 0 {
		s += fmt.Sprintf(", last %d messages", p.Last)
	}
	onOff := map[bool]string{true: "on", false: "off"}
	return s + ", working memory " + onOff[p.WorkingMemory] + ", semantic recall " + onOff[p.Recall]
}

func (a *app) prompt(ctx context.Context, c *connection, r inspector.PromptRequest, fromBoundary bool) error {
	turn, err := inspector.NextPrompt(ctx, c.Memory, r)
	if err != nil {
		return err
	}
	pc := promptConfig{Budget: r.Budget, Last: r.Last, WorkingMemory: r.WorkingMemory, Recall: c.Vector != nil, BudgetFrom: "--max-tokens"}
	if r.Budget > 0 && r.Remove >= 0 {
		pc.Remove = r.Remove
	}
	if fromBoundary {
		pc.BudgetFrom = "the thread's boundary"
	}
	msgs := turn.Messages()
	tk := c.Memory.Tokenizer()
	out := make([]promptMessage, len(msgs))
	for i := range msgs {
		out[i] = promptMessage{Message: msgs[i], Source: msgs[i].Source, Tokens: budget.MessageTokens(tk, &msgs[i])}
	}
	total := budget.PromptTokens(msgs)
	trimmed := len(turn.Trimmed())
	if a.flags.json {
		doc := map[string]any{"threadId": r.Thread.ID, "resourceId": r.Thread.ResourceID, "messages": out, "totalTokens": total,
			"trimmed": trimmed, "encoding": tk.Encoding(), "config": pc}
		if err := turn.RecallErr(); err != nil {
			doc["recallError"] = err.Error()
		}
		return writeJSON(a.stdout, doc)
	}
	t := newTable(a.stdout, "#", "SOURCE", "ROLE", "TOKENS", "CONTENT")
	for i, m := range out {
		t.row(strconv.Itoa(i+1), string(m.Source), string(m.Role), strconv.Itoa(m.Tokens), oneLine(partLines(m.Message)[0], 72))
	}
	if err := t.flush(); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "total %d tokens (%s) in %d messages; %d remembered messages trimmed by the budget\n", total, tk.Encoding(), len(out), trimmed)
	fmt.Fprintf(a.stdout, "config: %s\n", pc)
	if err := turn.RecallErr(); err != nil {
		fmt.Fprintf(a.stdout, "semantic recall failed: %v\n", err)
	}
	return nil
}
