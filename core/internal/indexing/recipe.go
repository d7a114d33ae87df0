// Package indexing makes the records semantic recall indexes for messages:
// the text indexed of a message (its text, tool calls rendered as words, file
// names and captions), the chunks and their deterministic ids, the keywords
// with the thread context before each message, and the version that names
// the recipe. It also keeps the in-process bookkeeping of messages whose
// indexing failed (Pending, Clean).
package indexing

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/analysis"
)

// textVersion changes whenever the text indexed for a message changes.
const textVersion = 2

// filePartTextKeys are the keys of a file part's extra fields indexed as its
// description.
var filePartTextKeys = []string{"alt", "altText", "caption", "title", "description"}

// Recipe is the instance-wide recipe of index records: analyzer, what is
// indexed, and the version naming both.
type Recipe struct {
	Analyzer *analysis.Analyzer
	Context  int // previous messages of the thread indexed with a message's keywords
	Version  string
	tools    bool
	files    bool
}

// New returns the recipe that indexes context previous messages with each
// message's keywords, and tool calls and files unless told not to.
func New(an *analysis.Analyzer, context int, tools, files bool) *Recipe {
	return &Recipe{Analyzer: an, Context: context, tools: tools, files: files,
		Version: fmt.Sprintf("text/%d;analysis/%s;context/%d;tools/%t;files/%t", textVersion, an.ID(), context, tools, files)}
}

// MessageText is what is indexed of a message itself, one line per part:
// text parts, tool names with arguments and results rendered as text, and
// file names with their alt text or caption.
func (r *Recipe) MessageText(msg *message.Message) string {
	var lines []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			lines = append(lines, s)
		}
	}
	for _, p := range msg.Content.Parts {
		switch {
		case p.Type == message.PartText:
			add(p.Text)
		case p.ToolInvocation != nil && r.tools:
			ti := p.ToolInvocation
			add(strings.TrimSpace(ti.ToolName + " " + jsonText(ti.Args) + " " + jsonText(ti.Result) + " " + ti.ErrorText))
		case p.Type == message.PartFile && r.files:
			add(p.Filename)
			for _, k := range filePartTextKeys {
				var s string
				if json.Unmarshal(p.Extra[k], &s) == nil {
					add(s)
				}
			}
		}
	}
	return strings.Join(lines, "\n")
}

// jsonText renders JSON as plain words: object keys and values, array items
// and scalars, in document order (keys sorted). Invalid JSON is kept as is.
func jsonText(raw json.RawMessage) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		return ""
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return string(raw)
	}
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				b.WriteString(k + " ")
				walk(x[k])
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case nil:
		default:
			fmt.Fprint(&b, x, " ")
		}
	}
	walk(v)
	return strings.TrimSpace(b.String())
}

// Records returns the index records of msgs and the texts to embed: one
// record per chunk of a message's own text. The chunk is the record's Text
// and what is embedded; its Keywords also carry the thread context before it
// (prev: message id -> context text), at most its last maxChunk characters:
// the words nearest the message, and a record's keywords stay within two
// chunks however long the messages before it are. On LoCoMo, context helped
// keyword search and hurt the embedding (BENCHMARKS.md).
func (r *Recipe) Records(msgs []message.Message, maxChunk int, prev map[string]string) (recs []vector.Record, embed []string) {
	for i := range msgs {
		msg := &msgs[i]
		c := tail(prev[msg.ID], maxChunk)
		for n, chunk := range vector.ChunkText(r.MessageText(msg), maxChunk) {
			full := chunk
			if c != "" {
				full = c + "\n" + chunk
			}
			recs = append(recs, vector.Record{ID: fmt.Sprintf("%s#%d", msg.ID, n), Text: chunk, Keywords: r.Analyzer.Analyze(full),
				Meta: vector.Meta{MessageID: msg.ID, ThreadID: msg.ThreadID, ResourceID: msg.ResourceID, Role: msg.Role, CreatedAt: msg.CreatedAt,
					Metadata: msg.Content.Metadata}})
			embed = append(embed, chunk)
		}
	}
	return recs, embed
}

// tail returns the last maxChars characters (runes) of s, from a word
// boundary when there is one; maxChars <= 0 keeps s.
func tail(s string, maxChars int) string {
	if maxChars <= 0 || len(s) <= maxChars {
		return s
	}
	runes := []rune(s)
	if len(runes) <= maxChars {
		return s
	}
	out := string(runes[len(runes)-maxChars:])
	if i := strings.IndexAny(out, " \n\t\r"); i >= 0 {
		out = out[i+1:]
	}
	return out
}

// Configure resolves a recipe from semantic recall's settings: the analysis
// language, the context messages (nil: def; within [0, 16]) and whether tool
// calls and files are left out. Errors are memerr.ErrInvalidConfig.
func Configure(language string, context *int, noTools, noFiles bool, def int) (*Recipe, error) {
	an, err := analysis.New(language)
	if err != nil {
		return nil, &memerr.Error{Code: memerr.CodeInvalidConfig, Op: "New", Msg: "semanticRecall.language", Err: err}
	}
	n := def
	if context != nil {
		if *context < 0 || *context > 16 {
			return nil, memerr.Errorf(memerr.CodeInvalidConfig, "New", "semanticRecall.indexText.contextMessages must be within [0, 16]")
		}
		n = *context
	}
	return New(an, n, !noTools, !noFiles), nil
}
