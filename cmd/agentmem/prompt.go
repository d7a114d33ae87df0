package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/budget"
)

// promptMessage is one message of the prompt as prompt prints it.
type promptMessage struct {
	core.Message
	Source core.Source `json:"source"`
	Tokens int         `json:"tokens"`
}

func (a *app) promptCmd() *cobra.Command {
	var (
		maxTokens, last int
		input           string
		system          []string
		workingMemory   bool
	)
	cmd := &cobra.Command{
		Use:   "prompt THREAD",
		Short: "Show exactly what the model would see next turn (read-only)",
		Long: `Build the next turn's prompt of a thread exactly as Memory.Begin does, in
read-only mode (nothing is saved, the boundary does not move): working memory,
history after the persisted boundary within --last and --max-tokens, semantic
recall when --vector is given, and the --input message. Each message is
printed with its source (system, memory, context, input) and token count,
then the total as the budget counts it.`,
		Example: `  agentmem prompt thread-123 --max-tokens 8000
  agentmem prompt thread-123 --input "What did we decide?" --vector ./memory.vec`,
		Args:              exactArgs(1),
		ValidArgsFunction: a.completeThreads,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg := core.Config{ReadOnly: core.Bool(true)}
			if maxTokens > 0 {
				cfg.MessageHistory = &core.MessageHistory{MaxTokens: maxTokens}
			}
			if last > 0 {
				cfg.LastMessages = core.LastN(last)
			}
			if workingMemory {
				cfg.WorkingMemory = &core.WorkingMemoryConfig{Enabled: true}
			}
			return a.withConn(cmd, func(ctx context.Context, c *connection) error {
				return a.prompt(ctx, c, args[0], input, system, cfg)
			})
		},
	}
	f := cmd.Flags()
	f.IntVar(&maxTokens, "max-tokens", 0, "token budget of the whole prompt (0: no budget)")
	f.IntVar(&last, "last", 0, "at most this many history messages (default: 10 without a budget, no cap with one)")
	f.StringVar(&input, "input", "", "the user's next message")
	f.StringArrayVar(&system, "system", nil, "a system instruction (repeatable)")
	f.BoolVar(&workingMemory, "working-memory", true, "include working memory")
	return cmd
}

func (a *app) prompt(ctx context.Context, c *connection, threadID, input string, system []string, cfg core.Config) error {
	th, err := c.Store.GetThread(ctx, threadID)
	if err != nil {
		return err
	}
	req := core.TurnRequest{ThreadID: th.ID, ResourceID: th.ResourceID, System: system, Config: &cfg}
	if input != "" {
		req.Input = []core.Message{core.NewMessage(core.RoleUser, input)}
	}
	turn, err := c.Memory.Begin(ctx, req)
	if err != nil {
		return err
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
		doc := map[string]any{"threadId": th.ID, "resourceId": th.ResourceID, "messages": out, "totalTokens": total, "trimmed": trimmed, "encoding": tk.Encoding()}
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
	if err := turn.RecallErr(); err != nil {
		fmt.Fprintf(a.stdout, "semantic recall failed: %v\n", err)
	}
	return nil
}
