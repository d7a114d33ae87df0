package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/export"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// shownMessage is a message as show prints it in JSON.
type shownMessage struct {
	message.Message
	Tokens int `json:"tokens"`
	// Trimmed is true for messages at or before the persisted boundary.
	Trimmed bool `json:"trimmed"`
}

// shownThread is everything show prints about a thread.
type shownThread struct {
	Thread   store.Thread   `json:"thread"`
	Messages []shownMessage `json:"messages"`
	// WorkingMemory holds the thread's and its resource's working memory.
	WorkingMemory map[store.Scope]string `json:"workingMemory"`
	// Observations holds the thread's and its resource's active
	// observational-memory records that were ever written.
	Observations []export.ObservationDoc `json:"observations"`
}

func (a *app) showCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "show THREAD",
		Short: "Print a thread: messages, boundary, working memory, observations",
		Long: `Print a thread: its title, resource and metadata; every message with its time,
role, stored token count and parts (text, reasoning, tool calls and results,
files, sources); the persisted trim boundary as a line (messages above it are
no longer loaded into prompts); the working memory of the thread and of its
resource; and the active observations of observational memory.`,
		Example: `  agentmem show thread-123
  agentmem show thread-123 --json | jq '.messages | length'`,
		Args:              exactArgs(1),
		ValidArgsFunction: a.completeThreads,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withConn(cmd, func(ctx context.Context, c *connection) error {
				doc, err := loadShown(ctx, c, args[0])
				if err != nil {
					return err
				}
				if a.flags.json {
					return writeJSON(a.stdout, doc)
				}
				return a.printShown(doc)
			})
		},
	}
}

func loadShown(ctx context.Context, c *connection, threadID string) (shownThread, error) {
	th, err := c.Store.GetThread(ctx, threadID)
	if err != nil {
		return shownThread{}, err
	}
	doc := shownThread{Thread: th, Messages: []shownMessage{}, WorkingMemory: map[store.Scope]string{}, Observations: []export.ObservationDoc{}}
	err = export.WalkMessages(ctx, c.Store, th.ID, func(msgs []message.Message) error {
		for _, m := range msgs {
			trimmed := th.Boundary != nil && th.Boundary.Excludes(m.CreatedAt, m.ID)
			doc.Messages = append(doc.Messages, shownMessage{Message: m, Tokens: m.Tokens, Trimmed: trimmed})
		}
		return nil
	})
	if err != nil {
		return doc, err
	}
	for _, k := range []struct {
		scope store.Scope
		id    string
	}{{store.ScopeThread, th.ID}, {store.ScopeResource, th.ResourceID}} {
		wm, err := c.Store.GetWorkingMemory(ctx, k.scope, k.id)
		if err != nil {
			return doc, err
		}
		doc.WorkingMemory[k.scope] = wm.Data
		rec, err := c.Store.GetObservations(ctx, store.ObservationKey(k.scope, th.ID, th.ResourceID))
		if err != nil {
			return doc, err
		}
		if rec.Version > 0 {
			doc.Observations = append(doc.Observations, export.NewObservationDoc(rec))
		}
	}
	return doc, nil
}

func (a *app) printShown(doc shownThread) error {
	th := doc.Thread
	head := newTable(a.stdout)
	head.row("thread", th.ID)
	head.row("resource", th.ResourceID)
	head.row("title", orDash(th.Title))
	head.row("created", timeText(th.CreatedAt))
	head.row("updated", timeText(th.UpdatedAt))
	head.row("metadata", metadataText(th.Metadata))
	if b := th.Boundary; b != nil {
		head.row("boundary", fmt.Sprintf("%s (budget %d tokens, trim %d)", timeText(b.CreatedAt), b.MaxTokens, b.AtMaxRemoveTokens))
	}
	if err := head.flush(); err != nil {
		return err
	}
	fmt.Fprintln(a.stdout)
	t := newTable(a.stdout, "#", "TIME", "ROLE", "TOKENS", "CONTENT")
	for i, m := range doc.Messages {
		lines := partLines(m.Message)
		t.row(strconv.Itoa(i+1), timeText(m.CreatedAt), string(m.Role), strconv.Itoa(m.Tokens), lines[0])
		for _, l := range lines[1:] {
			t.row("", "", "", "", l)
		}
		if m.Trimmed && (i == len(doc.Messages)-1 || !doc.Messages[i+1].Trimmed) {
			t.rule("──── boundary: the messages above are trimmed from prompts ────")
		}
	}
	if err := t.flush(); err != nil {
		return err
	}
	total := 0
	for _, m := range doc.Messages {
		total += m.Tokens
	}
	fmt.Fprintf(a.stdout, "%d messages, %d tokens\n", len(doc.Messages), total)
	for _, scope := range []store.Scope{store.ScopeThread, store.ScopeResource} {
		if data := doc.WorkingMemory[scope]; strings.TrimSpace(data) != "" {
			fmt.Fprintf(a.stdout, "\nworking memory (%s):\n%s\n", scope, indent(data, "  "))
		}
	}
	for _, o := range doc.Observations {
		fmt.Fprintf(a.stdout, "\nobservations (%s, generation %d, %d tokens, observed up to %s):\n%s\n",
			o.Key, o.Generation, o.ObservationTokens, timeText(o.LastObservedAt), indent(o.Observations, "  "))
	}
	return nil
}

// partLines renders a message's parts as text lines (at least one).
func partLines(m message.Message) []string {
	var lines []string
	for _, p := range m.Content.Parts {
		switch p.Type {
		case message.PartText:
			lines = append(lines, strings.Split(strings.TrimRight(p.Text, "\n"), "\n")...)
		case message.PartReasoning:
			lines = append(lines, "[reasoning] "+oneLine(p.Reasoning, 100))
		case message.PartToolInvocation:
			lines = append(lines, toolLines(p.ToolInvocation)...)
		case message.PartFile:
			lines = append(lines, fmt.Sprintf("[file] %s %s", orDash(p.Filename), p.MimeType))
		case message.PartSource:
			if p.Source != nil {
				lines = append(lines, fmt.Sprintf("[source] %s %s", p.Source.URL, p.Source.Title))
			}
		case message.PartStepStart:
		default:
			lines = append(lines, "["+p.Type+"]")
		}
	}
	if len(lines) == 0 {
		lines = []string{"-"}
	}
	return lines
}

// jsonText prints raw JSON canonically on one line of at most n runes.
func jsonText(raw json.RawMessage, n int) string {
	if c, err := export.CanonicalJSON(raw); err == nil {
		raw = c
	}
	return oneLine(string(raw), n)
}

func toolLines(ti *message.ToolInvocation) []string {
	if ti == nil {
		return nil
	}
	lines := []string{fmt.Sprintf("[tool call %s] %s(%s)", ti.ToolCallID, ti.ToolName, jsonText(ti.Args, 80))}
	switch {
	case ti.IsError:
		lines = append(lines, fmt.Sprintf("[tool error %s] %s", ti.ToolCallID, oneLine(ti.ErrorText, 80)))
	case ti.State == message.ToolStateResult:
		lines = append(lines, fmt.Sprintf("[tool result %s] %s", ti.ToolCallID, jsonText(ti.Result, 80)))
	}
	return lines
}

// completeThreads completes thread ids for shell completion.
func (a *app) completeThreads(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var ids []string
	_ = a.withConn(cmd, func(ctx context.Context, c *connection) error {
		page, err := c.Store.ListThreads(ctx, store.ThreadQuery{PerPage: 200})
		for _, t := range page.Threads {
			ids = append(ids, t.ID+"\t"+oneLine(t.Title, 40))
		}
		return err
	})
	return ids, cobra.ShellCompDirectiveNoFileComp
}
