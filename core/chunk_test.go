package core_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
)

func TestChunkText(t *testing.T) {
	if got := core.ChunkText("", 10); got != nil {
		t.Fatalf("empty = %q", got)
	}
	if got := core.ChunkText("short text", 100); len(got) != 1 {
		t.Fatalf("short = %q", got)
	}
	cjk := strings.Repeat("漢字テキスト ", 50) // 7 runes + space, 3 bytes per rune
	for _, c := range core.ChunkText(cjk, 20) {
		if n := utf8.RuneCountInString(c); n > 20 || n < 7 {
			t.Fatalf("chunk of %d characters: %q", n, c)
		}
	}
	long := strings.Repeat("x", 25)
	got := core.ChunkText("a "+long+" b", 10)
	if strings.Join(got, "|") != "a|xxxxxxxxxx|xxxxxxxxxx|xxxxx b" {
		t.Fatalf("hard split = %q", got)
	}
	words := strings.Fields(strings.Repeat("alpha beta gamma ", 100))
	joined := strings.Join(core.ChunkText(strings.Join(words, " "), 64), " ")
	if joined != strings.Join(words, " ") {
		t.Fatal("chunks do not reassemble the text")
	}
}

// Token counts supplied with input are recounted, so a wrong count cannot
// break the budget.
func TestSuppliedTokenCountsIgnored(t *testing.T) {
	m := newMem(t, memstore.New(), budget(100, 0))
	in := core.NewMessage(core.RoleUser, text("big", 90))
	in.Tokens, in.TokenEncoding = 1, "bytes"
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{in}})
	if err != nil {
		t.Fatal(err)
	}
	if got := turn.Messages()[0].Tokens; got != 90 {
		t.Fatalf("input counted as %d tokens, want 90", got)
	}
}
