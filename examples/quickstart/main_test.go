package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
)

// The quickstart runs offline; turn 4's prompt holds the DHL answer through
// recall although the long story of turn 3 does not fit the budget; a second
// run continues the thread and says so; -fresh starts over.
func TestQuickstart(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	prompts, err := run(context.Background(), dir, false, &out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "new thread") {
		t.Errorf("first run does not say it starts a thread:\n%s", out.String())
	}
	if len(prompts) != 4 || !recalledDHL(prompts[3]) {
		t.Fatalf("turn 4's prompt has no recalled DHL message:\n%s", out.String())
	}
	out.Reset()
	prompts, err = run(context.Background(), dir, false, &out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "continuing thread \"order-support\"") || !strings.Contains(out.String(), "9 messages from earlier runs") {
		t.Errorf("second run does not continue the thread:\n%s", out.String())
	}
	if len(conversationOf(prompts[0])) <= 1 {
		t.Errorf("second run's first turn remembers nothing: %v", prompts[0])
	}
	out.Reset()
	if _, err := run(context.Background(), dir, true, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "new thread") {
		t.Errorf("-fresh does not start over:\n%s", out.String())
	}
}

// recalledDHL reports whether prompt has a recalled message naming DHL.
func recalledDHL(prompt []core.Message) bool {
	for _, m := range prompt {
		if m.Source == core.SourceRecall && strings.Contains(summary(m), "DHL") {
			return true
		}
	}
	return false
}

// conversationOf returns the non-system messages of a prompt.
func conversationOf(prompt []core.Message) []core.Message {
	var out []core.Message
	for _, m := range prompt {
		if m.Role != core.RoleSystem {
			out = append(out, m)
		}
	}
	return out
}
