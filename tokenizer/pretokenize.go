package tokenizer

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The functions in this file reproduce, by hand, the pre-tokenizer regular
// expressions of the tiktoken encodings as github.com/pkoukk/tiktoken-go runs
// them (github.com/dlclark/regexp2: leftmost-first alternation, greedy
// backtracking quantifiers, \s as unicode.IsSpace, \p{..} from Go's unicode
// tables). Each split function returns the byte length of the first
// pre-token of a non-empty, valid UTF-8 string; the counts of every encoding
// are checked against tiktoken-go by the differential tests and the fuzz
// target.

// Character classes of a rune, as bit flags.
const (
	cL     = 1 << iota // \p{L}
	cN                 // \p{N}
	cS                 // \s
	cCRLF              // \r or \n
	cUpper             // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	cLower             // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
)

// asciiClasses holds the classes of the ASCII runes; it is filled by
// loadClasses before the first split.
var asciiClasses [utf8.RuneSelf]uint8

// loadClasses fills asciiClasses.
func loadClasses() {
	for r := range rune(utf8.RuneSelf) {
		asciiClasses[r] = classOfRune(r)
	}
}

// classOf returns the classes of r.
func classOf(r rune) uint8 {
	if r < utf8.RuneSelf {
		return asciiClasses[r]
	}
	return classOfRune(r)
}

// classOfRune computes the classes of r from the unicode tables, as regexp2
// reads them.
func classOfRune(r rune) uint8 {
	var c uint8
	if unicode.IsSpace(r) {
		c |= cS
	}
	if r == '\r' || r == '\n' {
		c |= cCRLF
	}
	switch {
	case unicode.Is(unicode.Ll, r):
		c |= cL | cLower
	case unicode.Is(unicode.Lu, r), unicode.Is(unicode.Lt, r):
		c |= cL | cUpper
	case unicode.Is(unicode.Lo, r), unicode.Is(unicode.Lm, r):
		c |= cL | cUpper | cLower
	case unicode.Is(unicode.M, r):
		c |= cUpper | cLower
	case unicode.Is(unicode.N, r):
		c |= cN
	}
	return c
}

// classAt decodes the rune at s[i:] and returns its classes and width.
func classAt(s string, i int) (uint8, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return asciiClasses[c], 1
	}
	r, w := utf8.DecodeRuneInString(s[i:])
	return classOf(r), w
}

// run returns the end of the longest run from i of runes having any of the
// classes in want.
func run(s string, i int, want uint8) int {
	for i < len(s) {
		c, w := classAt(s, i)
		if c&want == 0 {
			break
		}
		i += w
	}
	return i
}

// runMax is run limited to max runes.
func runMax(s string, i int, want uint8, max int) int {
	for ; i < len(s) && max > 0; max-- {
		c, w := classAt(s, i)
		if c&want == 0 {
			break
		}
		i += w
	}
	return i
}

// notClassRun returns the end of the longest run from i of runes having none
// of the classes in avoid.
func notClassRun(s string, i int, avoid uint8) int {
	for i < len(s) {
		c, w := classAt(s, i)
		if c&avoid != 0 {
			break
		}
		i += w
	}
	return i
}

// byteRun returns the end of the longest run from i of bytes in set.
func byteRun(s string, i int, set string) int {
	for i < len(s) && strings.IndexByte(set, s[i]) >= 0 {
		i++
	}
	return i
}

// splitO200k returns the length of the first pre-token of s for o200k_base:
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
func splitO200k(s string) int {
	c0, w0 := classAt(s, 0)
	if e := o200kWord(s, c0, w0); e > 0 {
		return e
	}
	if c0&cN != 0 {
		return runMax(s, 0, cN, 3)
	}
	if e := punctuation(s, c0, "\r\n/"); e > 0 {
		return e
	}
	return whitespace(s, w0, true)
}

// o200kWord tries o200k's two letter alternatives at the start of s and
// returns the match's end, or 0.
func o200kWord(s string, c0 uint8, w0 int) int {
	prefix := c0&(cL|cN|cCRLF) == 0
	if prefix {
		if e := casedWord(s, w0); e > 0 {
			return contraction(s, e, true)
		}
	}
	if e := casedWord(s, 0); e > 0 {
		return contraction(s, e, true)
	}
	if prefix {
		if e := upperWord(s, w0); e > 0 {
			return contraction(s, e, true)
		}
	}
	if e := upperWord(s, 0); e > 0 {
		return contraction(s, e, true)
	}
	return 0
}

// casedWord matches [upper]*[lower]+ at p (the classes cUpper and cLower)
// and returns its end, or 0. The greedy [upper]* backs off rune by rune
// until [lower]+ matches: either right after the upper run, or at the run's
// last rune that is lower too (then [lower]+ ends after that rune, since the
// runes after it are not lower).
func casedWord(s string, p int) int {
	i, lastLower := p, 0
	for i < len(s) {
		c, w := classAt(s, i)
		if c&cUpper == 0 {
			break
		}
		i += w
		if c&cLower != 0 {
			lastLower = i
		}
	}
	if i < len(s) {
		if c, _ := classAt(s, i); c&cLower != 0 {
			return run(s, i, cLower)
		}
	}
	return lastLower
}

// upperWord matches [upper]+[lower]* at p and returns its end, or 0.
func upperWord(s string, p int) int {
	if p >= len(s) {
		return 0
	}
	if c, _ := classAt(s, p); c&cUpper == 0 {
		return 0
	}
	return run(s, run(s, p, cUpper), cLower)
}

// contraction returns the end of an optional 's|'t|'re|'ve|'m|'ll|'d at e
// (letters compared as regexp2 does under (?i) when fold is set).
func contraction(s string, e int, fold bool) int {
	if e+1 >= len(s) || s[e] != '\'' {
		return e
	}
	lower := func(c byte) byte {
		if fold && 'A' <= c && c <= 'Z' {
			return c + 'a' - 'A'
		}
		return c
	}
	switch lower(s[e+1]) {
	case 's', 't', 'm', 'd':
		return e + 2
	case 'r', 'v':
		if e+2 < len(s) && lower(s[e+2]) == 'e' {
			return e + 3
		}
	case 'l':
		if e+2 < len(s) && lower(s[e+2]) == 'l' {
			return e + 3
		}
	}
	return e
}

// punctuation matches " ?[^\s\p{L}\p{N}]+[tail]*" at the start of s and
// returns its end, or 0.
func punctuation(s string, c0 uint8, tail string) int {
	p := 0
	if s[0] == ' ' && len(s) > 1 {
		if c1, _ := classAt(s, 1); c1&(cS|cL|cN) == 0 {
			p = 1
		}
	}
	if p == 0 && c0&(cS|cL|cN) != 0 {
		return 0
	}
	return byteRun(s, notClassRun(s, p, cS|cL|cN), tail)
}

// whitespace matches the whitespace alternatives at the start of s, whose
// first rune is w0 bytes wide: \s*[\r\n]+ (when newlines is set), then
// \s+(?!\S), then \s+. A string not starting with whitespace (which the
// alternatives before exclude) yields its first rune, so a split always
// advances.
func whitespace(s string, w0 int, newlines bool) int {
	end, lastNL, lastStart := 0, 0, 0
	for end < len(s) {
		c, w := classAt(s, end)
		if c&cS == 0 {
			break
		}
		if c&cCRLF != 0 {
			lastNL = end + w
		}
		lastStart = end
		end += w
	}
	switch {
	case end == 0:
		return w0
	case newlines && lastNL > 0:
		return lastNL
	case end == len(s) || lastStart == 0:
		return end
	default:
		return lastStart
	}
}

// splitCl100k returns the length of the first pre-token of s for cl100k_base:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}
//	| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
func splitCl100k(s string) int {
	if e := contraction(s, 0, true); e > 0 {
		return e
	}
	c0, w0 := classAt(s, 0)
	if c0&(cL|cN|cCRLF) == 0 && w0 < len(s) {
		if c1, _ := classAt(s, w0); c1&cL != 0 {
			return run(s, w0, cL)
		}
	}
	switch {
	case c0&cL != 0:
		return run(s, 0, cL)
	case c0&cN != 0:
		return runMax(s, 0, cN, 3)
	}
	if e := punctuation(s, c0, "\r\n"); e > 0 {
		return e
	}
	return whitespace(s, w0, true)
}

// splitP50k returns the length of the first pre-token of s for p50k_base and
// r50k_base:
//
//	's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
func splitP50k(s string) int {
	if e := contraction(s, 0, false); e > 0 {
		return e
	}
	c0, w0 := classAt(s, 0)
	for _, class := range [...]uint8{cL, cN} {
		if s[0] == ' ' && len(s) > 1 {
			if c1, _ := classAt(s, 1); c1&class != 0 {
				return run(s, 1, class)
			}
		}
		if c0&class != 0 {
			return run(s, 0, class)
		}
	}
	if e := punctuation(s, c0, ""); e > 0 {
		return e
	}
	return whitespace(s, w0, false)
}
