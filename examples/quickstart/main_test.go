package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
)

// The quickstart runs offline; turn 4's prompt holds the DHL answer although
// the long story of turn 3 does not fit the budget; within the history
// window nothing is labelled recall; a second run continues the thread and
// says so, its first turn recalling the DHL answer from before the boundary;
// -fresh starts over.
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
	if len(prompts) != 4 || !hasDHL(prompts[3], core.SourceMemory) {
		t.Fatalf("turn 4's prompt has no DHL message:\n%s", out.String())
	}
	for _, m := range prompts[1] {
		if m.Source == core.SourceRecall {
			t.Errorf("turn 2 labels a message of its history window recall:\n%s", out.String())
		}
	}
	out.Reset()
	prompts, err = run(context.Background(), dir, false, &out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "continuing thread \"order-support\"") || !strings.Contains(out.String(), "9 messages from earlier runs") {
		t.Errorf("second run does not continue the thread:\n%s", out.String())
	}
	if len(conversationOf(prompts[0])) <= 1 || !hasDHL(prompts[0], core.SourceRecall) {
		t.Errorf("second run's first turn recalls no DHL message:\n%s", out.String())
	}
	out.Reset()
	if _, err := run(context.Background(), dir, true, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "new thread") {
		t.Errorf("-fresh does not start over:\n%s", out.String())
	}
}

// hasDHL reports whether prompt has a message of source src naming DHL.
func hasDHL(prompt []core.Message, src core.Source) bool {
	for _, m := range prompt {
		if m.Source == src && strings.Contains(summary(m), "DHL") {
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
