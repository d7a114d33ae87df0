package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// Two runs on one database: the second loads the first one's history and
// continues the conversation.
func TestSecondRunContinues(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	db := filepath.Join(t.TempDir(), "memory.db")
	var first, second bytes.Buffer
	if err := run(context.Background(), &first, db, "t", "jim", false, ""); err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), &second, db, "t", "jim", false, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(first.String(), "Loaded 0 messages") || !strings.Contains(first.String(), "AI: Nice to meet you, Jim!") {
		t.Fatalf("first run:\n%s", first.String())
	}
	for _, want := range []string{"Loaded 2 messages", "  Human: Hi! I'm Jim. I live in Oslo.", "AI: Your name is Jim.", "Thread title: Getting to know Jim"} {
		if !strings.Contains(second.String(), want) {
			t.Fatalf("second run lacks %q:\n%s", want, second.String())
		}
	}
}
