// Package tokenizer counts tokens with OpenAI's tiktoken encodings, offline.
//
// The BPE rank files are taken from the data embedded in
// github.com/pkoukk/tiktoken-go-loader, so no network access is ever needed.
// Nothing is loaded at package initialisation: the ranks for an encoding are
// parsed lazily, once per process, on the first call to [Tokenizer.Count] (or
// [Tokenizer.Warm]) for that encoding. Creating a [Tokenizer] with [New], [ForModel] or [Default] is
// cheap.
//
// Note: the first load installs the offline loader process-wide via
// tiktoken.SetBpeLoader, so other users of github.com/pkoukk/tiktoken-go in
// the same process become offline as well.
package tokenizer

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
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
	name string
	once sync.Once
	tk   *tiktoken.Tiktoken
	err  error
}

// encoders holds exactly one entry per supported encoding; the map itself is
// never modified after package initialisation, so reading it is race-free.
var encoders = map[string]*encoder{
	o200kBase:  {name: o200kBase},
	cl100kBase: {name: cl100kBase},
	p50kBase:   {name: p50kBase},
	r50kBase:   {name: r50kBase},
}

// loaderOnce installs the offline BPE loader before the first encoding load.
var loaderOnce sync.Once

// get returns the loaded tiktoken encoder, loading it on first use.
func (e *encoder) get() (*tiktoken.Tiktoken, error) {
	e.once.Do(func() {
		loaderOnce.Do(func() {
			tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
		})
		e.tk, e.err = tiktoken.GetEncoding(e.name)
		if e.err != nil {
			e.err = fmt.Errorf("tokenizer: load %s: %w", e.name, e.err)
		}
	})
	return e.tk, e.err
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
// Count never panics. Invalid UTF-8 sequences are counted as U+FFFD. If the
// embedded BPE data could not be loaded (which should not happen), Count
// falls back to an estimate of one token per four bytes.
func (t *Tokenizer) Count(text string) int {
	if text == "" {
		return 0
	}
	tk, err := t.encoder().get()
	if err != nil {
		return (len(text) + 3) / 4
	}
	return len(tk.EncodeOrdinary(text))
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
