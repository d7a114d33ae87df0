// Package analysis turns text into the terms that keyword search (BM25)
// matches and that the offline hash embedder hashes. One Analyzer is one
// small pipeline, applied alike to what is written and to what is asked:
//
//  1. Tokenize: a token is a maximal run of letters, digits and combining
//     marks in any script. An apostrophe between letters ("don't") and a dot
//     or comma between digits ("3.5", "1,000") stay inside the token; every
//     other character separates. A run of CJK characters is one token: it
//     passes through unbroken (there are no spaces to split it on, and
//     guessing word boundaries needs a dictionary).
//  2. Split code identifiers: a token with inner capitals or underscores
//     ("lookupOrder", "order_id") yields its parts ("lookup", "order") and the
//     whole identifier, so both a word and the exact identifier match.
//  3. Lowercase.
//  4. Drop stopwords of the language (the Snowball lists, plus English
//     contractions).
//  5. Stem with the Snowball stemmer of the language
//     (github.com/kljensen/snowball); only tokens in the language's script are
//     stemmed, so numbers, dates and text in other scripts are kept as they are.
//
// Language None stops after step 3. The analyzer's ID names the pipeline and
// its version; vector indexes record it, so that a change of analyzer is
// detected and repaired by a reindex instead of silently mixing terms.
package analysis

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/french"
	"github.com/kljensen/snowball/hungarian"
	"github.com/kljensen/snowball/norwegian"
	"github.com/kljensen/snowball/russian"
	"github.com/kljensen/snowball/spanish"
	"github.com/kljensen/snowball/swedish"
)

// Languages an Analyzer supports.
const (
	English   = "english"
	French    = "french"
	Hungarian = "hungarian"
	Norwegian = "norwegian"
	Russian   = "russian"
	Spanish   = "spanish"
	Swedish   = "swedish"
	// None tokenizes and lowercases only: no stopwords, no stemming.
	None = "none"
)

// pipelineVersion changes whenever the pipeline's output changes for some
// input, so that indexes built by an older pipeline are detected.
const pipelineVersion = 1

// language is what a Snowball language contributes to the pipeline.
type language struct {
	stem   func(word string, stemStopWords bool) string
	stop   func(word string) bool
	script *unicode.RangeTable
}

var languages = map[string]language{
	English:   {english.Stem, englishStop, unicode.Latin},
	French:    {french.Stem, french.IsStopWord, unicode.Latin},
	Hungarian: {hungarian.Stem, hungarian.IsStopWord, unicode.Latin},
	Norwegian: {norwegian.Stem, norwegian.IsStopWord, unicode.Latin},
	Russian:   {russian.Stem, russian.IsStopWord, unicode.Cyrillic},
	Spanish:   {spanish.Stem, spanish.IsStopWord, unicode.Latin},
	Swedish:   {swedish.Stem, swedish.IsStopWord, unicode.Latin},
}

// Analyzer is one text-analysis pipeline (see the package doc). It is
// immutable and safe for concurrent use.
type Analyzer struct {
	name  string
	lang  *language // nil for None
	cache *stemCache
}

// stemCache remembers the stems of up to maxCached words: conversation
// vocabulary repeats, and stemming is most of the pipeline's cost.
type stemCache struct {
	m sync.Map // word -> stem
	n atomic.Int64
}

const maxCached = 1 << 16

func (c *stemCache) stem(w string, stem func(string, bool) string) string {
	if s, ok := c.m.Load(w); ok {
		return s.(string)
	}
	s := stem(w, true)
	if c.n.Load() < maxCached {
		c.n.Add(1)
		c.m.Store(w, s)
	}
	return s
}

// New returns the analyzer of a language: English, None, or another
// Snowball language listed above. "" means English.
func New(lang string) (*Analyzer, error) {
	if lang == "" {
		lang = English
	}
	if lang == None {
		return &Analyzer{name: None}, nil
	}
	l, ok := languages[lang]
	if !ok {
		return nil, fmt.Errorf("analysis: unknown language %q (want %s, %s, or a Snowball language: french, hungarian, norwegian, russian, spanish, swedish)", lang, English, None)
	}
	return &Analyzer{name: lang, lang: &l, cache: &stemCache{}}, nil
}

// Must returns the analyzer of lang and panics on an unknown language; for
// package-level values with a constant language.
func Must(lang string) *Analyzer {
	a, err := New(lang)
	if err != nil {
		panic(err)
	}
	return a
}

// Plain is the None analyzer: what stores use for records and queries that
// bring no analyzed terms.
var Plain = Must(None)

// Language returns the analyzer's language.
func (a *Analyzer) Language() string { return a.name }

// ID names the pipeline and its version, e.g. "english/1"; indexes record it.
func (a *Analyzer) ID() string { return fmt.Sprintf("%s/%d", a.name, pipelineVersion) }

// Terms returns the analyzed terms of text, in order, repeats kept (BM25
// counts them).
func (a *Analyzer) Terms(text string) []string {
	var out []string
	for _, tok := range tokens(text) {
		for _, w := range splitIdentifier(tok) {
			if t, ok := a.term(strings.ToLower(w)); ok {
				out = append(out, t)
			}
		}
	}
	return out
}

// Analyze returns the terms of text joined by single spaces: the analyzed
// text that indexes store and keyword queries send.
func (a *Analyzer) Analyze(text string) string { return strings.Join(a.Terms(text), " ") }

// term applies stopwords and stemming to one lowercased word.
func (a *Analyzer) term(w string) (string, bool) {
	if a.lang == nil {
		return w, true
	}
	if a.lang.stop(w) {
		return "", false
	}
	if !inScript(w, a.lang.script) {
		return w, true
	}
	return a.cache.stem(w, a.lang.stem), true
}

// inScript reports whether every letter of w is in script (and w has one).
func inScript(w string, script *unicode.RangeTable) bool {
	letters := false
	for _, r := range w {
		if unicode.IsLetter(r) {
			if !unicode.Is(script, r) {
				return false
			}
			letters = true
		}
	}
	return letters
}

// tokens splits text into runs of letters, digits and marks (step 1).
func tokens(text string) []string {
	var out []string
	start := -1
	prev := rune(0)
	for i, r := range text {
		switch {
		case isWordRune(r) || r == '_':
			if start < 0 {
				start = i
			}
		case start >= 0 && joins(prev, r, text[i+utf8.RuneLen(r):]):
			// stays inside the token
		default:
			if start >= 0 {
				out = appendToken(out, text[start:i])
				start = -1
			}
		}
		prev = r
	}
	if start >= 0 {
		out = appendToken(out, text[start:])
	}
	return out
}

// appendToken appends tok without leading or trailing underscores.
func appendToken(out []string, tok string) []string {
	if tok = strings.Trim(tok, "_"); tok != "" {
		out = append(out, tok)
	}
	return out
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) }

// joins reports whether separator r, between prev and the text after it,
// stays inside a token: an apostrophe between letters, a dot or comma
// between digits.
func joins(prev, r rune, after string) bool {
	next, _ := utf8.DecodeRuneInString(after)
	switch r {
	case '\'', '’':
		return unicode.IsLetter(prev) && unicode.IsLetter(next)
	case '.', ',':
		return unicode.IsDigit(prev) && unicode.IsDigit(next)
	}
	return false
}

// splitIdentifier returns the parts of a camelCase or snake_case token
// followed by the whole token, or just the token (step 2). Apostrophes are
// normalized to ASCII.
func splitIdentifier(tok string) []string {
	tok = strings.ReplaceAll(tok, "’", "'")
	var parts []string
	for _, p := range strings.Split(tok, "_") {
		parts = append(parts, splitCamel(p)...)
	}
	if len(parts) <= 1 {
		return []string{tok}
	}
	return append(parts, tok)
}

// splitCamel splits at a lower-to-upper change and before the last capital
// of a capital run followed by a lower-case letter ("HTTPServer" -> "HTTP",
// "Server").
func splitCamel(s string) []string {
	rs := []rune(s)
	var out []string
	start := 0
	for i := 1; i < len(rs); i++ {
		lowerToUpper := unicode.IsLower(rs[i-1]) && unicode.IsUpper(rs[i])
		capsToWord := i+1 < len(rs) && unicode.IsUpper(rs[i-1]) && unicode.IsUpper(rs[i]) && unicode.IsLower(rs[i+1])
		if lowerToUpper || capsToWord {
			out = append(out, string(rs[start:i]))
			start = i
		}
	}
	if start < len(rs) {
		out = append(out, string(rs[start:]))
	}
	var kept []string
	for _, p := range out {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return kept
}

// englishStop is Snowball's English list plus common contractions, which
// the tokenizer keeps whole.
func englishStop(w string) bool {
	return english.IsStopWord(w) || englishContractions[w]
}

var englishContractions = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`i'm i've i'll i'd you're you've you'll you'd he's she's it's we're we've
		we'll we'd they're they've they'll they'd that's there's what's who's let's can't won't don't doesn't
		didn't isn't aren't wasn't weren't hasn't haven't hadn't couldn't wouldn't shouldn't`) {
		englishContractions[w] = true
	}
}
