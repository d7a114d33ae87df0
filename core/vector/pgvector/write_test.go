package pgvector

import "testing"

// TestLexeme: quotes and backslashes of a term are doubled inside the
// quoted lexeme.
func TestLexeme(t *testing.T) {
	for in, want := range map[string]string{"plain": `'plain'`, `it's`: `'it''s'`, `a\b`: `'a\\b'`, "": `''`} {
		if got := lexeme(in); got != want {
			t.Errorf("lexeme(%q) = %s, want %s", in, got, want)
		}
	}
}
