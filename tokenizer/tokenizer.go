// Package tokenizer counts tokens with OpenAI's tiktoken encodings, offline.
//
// The BPE ranks are those of the rank files github.com/pkoukk/tiktoken-go-loader
// embeds, precomputed into hash tables embedded in this package (ranks/), so
// no network access is ever needed and nothing is parsed: the first
// [Tokenizer.Count] (or [Tokenizer.Warm]) of an encoding in a process only
// checks its table's header, and nothing runs at package initialisation.
// Creating a [Tokenizer] with [New], [ForModel] or [Default] is cheap.
//
// Counting is exact: the package's own pre-tokenizer reproduces each
// encoding's split pattern as github.com/pkoukk/tiktoken-go runs it (with
// regexp2), and its byte-pair merge uses the same ranks with the same
// tie-breaking, so every count equals tiktoken-go's; the tests compare them
// on a varied corpus, on every Unicode class boundary and under fuzzing
// (FuzzCountMatchesTiktoken). It builds no token ids and counts 25–60×
// faster than tiktoken-go (BENCHMARKS.md, "Tokenizer").
package tokenizer

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// Supported encoding names.
const (
	o200kBase  = "o200k_base"
	cl100kBase = "cl100k_base"
	p50kBase   = "p50k_base"
	r50kBase   = "r50k_base"
)

// ErrUnknownEncoding is returned (wrapped) by New for an unsupported encoding name.
var ErrUnknownEncoding = errors.New("tokenizer: unknown encoding")

// encoder is the process-wide, lazily loaded state of one encoding.
type encoder struct {
	name  string
	split func(string) int // length of the first pre-token of a non-empty valid UTF-8 string
	data  *string          // the rank table file
	once  sync.Once
	ranks *rankTable
	err   error
	// paged makes Warm page the table in once; pageSum keeps what it read.
	paged   sync.Once
	pageSum byte
}

// encoders holds exactly one entry per supported encoding; the map itself is
// never modified after package initialisation, so reading it is race-free.
var encoders = map[string]*encoder{
	o200kBase:  {name: o200kBase, split: splitO200k, data: &o200kRanks},
	cl100kBase: {name: cl100kBase, split: splitCl100k, data: &cl100kRanks},
	p50kBase:   {name: p50kBase, split: splitP50k, data: &p50kRanks},
	r50kBase:   {name: r50kBase, split: splitP50k, data: &r50kRanks},
}

// classesOnce fills the character class table before the first split.
var classesOnce sync.Once

// get returns the loaded ranks, loading them on first use.
func (e *encoder) get() (*rankTable, error) {
	e.once.Do(func() {
		classesOnce.Do(loadClasses)
		e.ranks, e.err = openRanks(*e.data)
		if e.err != nil {
			e.err = fmt.Errorf("tokenizer: load %s: %w", e.name, e.err)
		}
	})
	return e.ranks, e.err
}

// count returns the number of tokens in text with ranks.
//
// tiktoken-go matches its pattern on the runes of text and encodes each
// match back to UTF-8, so every invalid byte counts as one U+FFFD; the
// conversion to runes and back does the same.
func (e *encoder) count(ranks *rankTable, text string) int {
	if !utf8.ValidString(text) {
		text = string([]rune(text))
	}
	n := 0
	for len(text) > 0 {
		end := e.split(text)
		n += ranks.countPiece(text[:end])
		text = text[end:]
	}
	return n
}

// Tokenizer counts tokens for one tiktoken encoding; it is safe for concurrent use.
type Tokenizer struct {
	enc *encoder
}

// defaultTokenizer is the shared o200k_base tokenizer returned by Default.
var defaultTokenizer = &Tokenizer{enc: encoders[o200kBase]}

// New returns a Tokenizer for the named encoding, or an error wrapping ErrUnknownEncoding.
func New(encoding string) (*Tokenizer, error) {
	e, ok := encoders[encoding]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownEncoding, encoding)
	}
	return &Tokenizer{enc: e}, nil
}

// ForModel returns a Tokenizer for the encoding used by the named model (see EncodingForModel).
func ForModel(model string) (*Tokenizer, error) {
	return New(EncodingForModel(model))
}

// Default returns the shared o200k_base Tokenizer; it never fails.
func Default() *Tokenizer {
	return defaultTokenizer
}

// Encoding returns the name of the tokenizer's encoding, e.g. "o200k_base".
func (t *Tokenizer) Encoding() string {
	return t.encoder().name
}

// Count returns the number of tokens in text; special tokens count as plain text.
//
// Count never panics. Each byte of an invalid UTF-8 sequence counts as a
// U+FFFD, as in tiktoken-go. If the embedded rank table could not be loaded
// (which should not happen), Count falls back to an estimate of one token
// per four bytes.
func (t *Tokenizer) Count(text string) int {
	if text == "" {
		return 0
	}
	e := t.encoder()
	ranks, err := e.get()
	if err != nil {
		return (len(text) + 3) / 4
	}
	return e.count(ranks, text)
}

// encoder returns t's encoder; a nil or zero Tokenizer behaves like Default.
func (t *Tokenizer) encoder() *encoder {
	if t == nil || t.enc == nil {
		return defaultTokenizer.enc
	}
	return t.enc
}

// EncodingForModel returns the tiktoken encoding name for a model, defaulting to "o200k_base".
//
// Matching is case-insensitive; a "provider/" prefix (e.g. "openai/gpt-4o")
// and a fine-tuning "ft:" prefix are ignored. Unknown models, including
// non-OpenAI ones such as "claude-*" or "llama*", map to "o200k_base".
func EncodingForModel(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	m = strings.TrimPrefix(m, "ft:")

	if enc, ok := modelToEncoding[m]; ok {
		return enc
	}
	for _, p := range modelPrefixes {
		if strings.HasPrefix(m, p.prefix) {
			return p.encoding
		}
	}
	return o200kBase
}

// modelToEncoding maps exact (lower-case) model names to encodings.
var modelToEncoding = map[string]string{
	"gpt-4":                  cl100kBase,
	"gpt-3.5":                cl100kBase,
	"gpt-35-turbo":           cl100kBase, // Azure deployment name
	"davinci-002":            cl100kBase,
	"babbage-002":            cl100kBase,
	"text-embedding-ada-002": cl100kBase,

	"text-davinci-003":      p50kBase,
	"text-davinci-002":      p50kBase,
	"text-davinci-edit-001": p50kBase, // p50k_edit: same BPE, differs only in special tokens
	"davinci-codex":         p50kBase,
	"cushman-codex":         p50kBase,

	"text-davinci-001": r50kBase,
	"text-curie-001":   r50kBase,
	"text-babbage-001": r50kBase,
	"text-ada-001":     r50kBase,
	"davinci":          r50kBase,
	"curie":            r50kBase,
	"babbage":          r50kBase,
	"ada":              r50kBase,
	"gpt2":             r50kBase, // gpt2 has the same ranks as r50k_base
	"gpt-2":            r50kBase,
}

// modelPrefixes maps model-name prefixes to encodings; the first match wins,
// so more specific prefixes must come first.
var modelPrefixes = []struct{ prefix, encoding string }{
	{"gpt-4o", o200kBase},
	{"gpt-4.1", o200kBase},
	{"gpt-4.5", o200kBase},
	{"gpt-5", o200kBase},
	{"chatgpt-4o", o200kBase},
	{"o1", o200kBase},
	{"o3", o200kBase},
	{"o4", o200kBase},

	{"gpt-4-", cl100kBase}, // gpt-4-turbo, gpt-4-32k, gpt-4-0613, ...
	{"gpt-3.5", cl100kBase},
	{"gpt-35-turbo", cl100kBase},
	{"text-embedding-3-", cl100kBase},

	{"text-similarity-", r50kBase},
	{"text-search-", r50kBase},
	{"code-search-", r50kBase},

	{"code-", p50kBase},
}
