package vector_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentmem/agentmem/core/vector"
)

func TestChunkText(t *testing.T) {
	if got := vector.ChunkText("", 10); got != nil {
		t.Fatalf("empty = %q", got)
	}
	if got := vector.ChunkText("short text", 100); len(got) != 1 {
		t.Fatalf("short = %q", got)
	}
	cjk := strings.Repeat("漢字テキスト ", 50) // 7 runes + space, 3 bytes per rune
	for _, c := range vector.ChunkText(cjk, 20) {
		if n := utf8.RuneCountInString(c); n > 20 || n < 7 {
			t.Fatalf("chunk of %d characters: %q", n, c)
		}
	}
	long := strings.Repeat("x", 25)
	got := vector.ChunkText("a "+long+" b", 10)
	if strings.Join(got, "|") != "a|xxxxxxxxxx|xxxxxxxxxx|xxxxx b" {
		t.Fatalf("hard split = %q", got)
	}
	words := strings.Fields(strings.Repeat("alpha beta gamma ", 100))
	joined := strings.Join(vector.ChunkText(strings.Join(words, " "), 64), " ")
	if joined != strings.Join(words, " ") {
		t.Fatal("chunks do not reassemble the text")
	}
}
