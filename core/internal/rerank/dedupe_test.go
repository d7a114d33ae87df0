package rerank

import (
	"slices"
	"testing"
)

func TestKeyIgnoresCasePunctuationAndSpacing(t *testing.T) {
	if got, want := Key("  What carrier was my order using, again?"), "what carrier was my order using again"; got != want {
		t.Fatalf("Key = %q, want %q", got, want)
	}
	if Key("🙂 !!") != "" {
		t.Fatal("a text without words has an empty key")
	}
}

func TestDedupeCollapsesRepeatsAndTheInput(t *testing.T) {
	texts := []string{
		"What carrier was my order using again?",
		"The order ships with DHL Express, tracking 123.",
		"what carrier was my order using again",
		"The order ships with DHL Express, tracking number 123.",
		"",
		"",
		"ok",
		"ok!",
		"okay",
	}
	got := Dedupe(texts, []string{"What carrier was my order using again??"})
	if want := []int{1, 4, 5, 6, 8}; !slices.Equal(got, want) {
		t.Fatalf("Dedupe = %v, want %v", got, want)
	}
}

func TestSameNeedsNearlyAllWords(t *testing.T) {
	a := Key("I went hiking in the mountains with my sister last weekend")
	if !Same(a, Key("I went hiking in the mountains with my sister last weekend!")) {
		t.Error("punctuation-only difference is the same text")
	}
	if Same(a, Key("I went hiking in the mountains with my brother last weekend")) {
		t.Error("a changed person is a different fact")
	}
	if Same(Key("thanks a lot"), Key("thanks a ton")) {
		t.Error("short texts collapse only when identical")
	}
}
