package core

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/analysis"
)

// IndexText configures what semantic recall indexes for a message. It is
// instance-wide (Options.Config); per-call values are ignored, because every
// record of an index must be made the same way. Changing it changes the index
// version: recall then reports ErrIndexVersionMismatch until ReindexResource
// (or Reindex) rebuilds the resource's records.
type IndexText struct {
	// ContextMessages is how many previous messages of the thread are
	// indexed with a message for keyword search (the embedding and the
	// record's Text are the message's own); nil means
	// DefaultContextMessages. A batch is taken as contiguous in its thread.
	ContextMessages *int
	// NoTools leaves tool names, arguments and results out.
	NoTools bool
	// NoFiles leaves file names, alt text and captions out.
	NoFiles bool
}

// DefaultContextMessages is the default IndexText.ContextMessages, chosen on
// LoCoMo (see BENCHMARKS.md, "Retrieval quality").
const DefaultContextMessages = 1

// indexTextVersion changes whenever the text indexed for a message changes.
const indexTextVersion = 2

// filePartTextKeys are the keys of a file part's extra fields indexed as its
// description.
var filePartTextKeys = []string{"alt", "altText", "caption", "title", "description"}

// indexing is the instance-wide recipe of index records: analyzer, what is
// indexed, and the version naming both.
type indexing struct {
	an      *analysis.Analyzer
	context int
	tools   bool
	files   bool
	version string
}

// newIndexing resolves the indexing settings of r (nil: the defaults).
func newIndexing(r *SemanticRecall) (*indexing, error) {
	if r == nil {
		r = &SemanticRecall{}
	}
	an, err := analysis.New(r.Language)
	if err != nil {
		return nil, &Error{Code: CodeInvalidConfig, Op: "New", Msg: "semanticRecall.language", Err: err}
	}
	ix := &indexing{an: an, context: DefaultContextMessages, tools: true, files: true}
	if t := r.IndexText; t != nil {
		if t.ContextMessages != nil {
			if *t.ContextMessages < 0 || *t.ContextMessages > 16 {
				return nil, memerr.Errorf(CodeInvalidConfig, "New", "semanticRecall.indexText.contextMessages must be within [0, 16]")
			}
			ix.context = *t.ContextMessages
		}
		ix.tools, ix.files = !t.NoTools, !t.NoFiles
	}
	ix.version = fmt.Sprintf("text/%d;analysis/%s;context/%d;tools/%t;files/%t",
		indexTextVersion, an.ID(), ix.context, ix.tools, ix.files)
	return ix, nil
}

// Analyzer returns the text analyzer of semantic recall (SemanticRecall.Language):
// a direct vector.Store query matches the index's keywords when its Keywords
// are Analyzer().Analyze(text).
func (m *Memory) Analyzer() *analysis.Analyzer { return m.ix.an }

// messageText is what is indexed of a message itself, one line per part:
// text parts, tool names with arguments and results rendered as text, and
// file names with their alt text or caption.
func (ix *indexing) messageText(msg *Message) string {
	var lines []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			lines = append(lines, s)
		}
	}
	for _, p := range msg.Content.Parts {
		switch {
		case p.Type == PartText:
			add(p.Text)
		case p.ToolInvocation != nil && ix.tools:
			ti := p.ToolInvocation
			add(strings.TrimSpace(ti.ToolName + " " + jsonText(ti.Args) + " " + jsonText(ti.Result) + " " + ti.ErrorText))
		case p.Type == PartFile && ix.files:
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

// records returns the index records of msgs and the texts to embed: one
// record per chunk of a message's own text. The chunk is the record's Text
// and what is embedded; its Keywords also carry the thread context before it
// (prev: message id -> context text). On LoCoMo, context helped keyword
// search and hurt the embedding (BENCHMARKS.md).
func (ix *indexing) records(msgs []Message, maxChunk int, prev map[string]string) (recs []vector.Record, embed []string) {
	for i := range msgs {
		msg := &msgs[i]
		for n, chunk := range vector.ChunkText(ix.messageText(msg), maxChunk) {
			full := chunk
			if c := prev[msg.ID]; c != "" {
				full = c + "\n" + chunk
			}
			recs = append(recs, vector.Record{ID: fmt.Sprintf("%s#%d", msg.ID, n), Text: chunk, Keywords: ix.an.Analyze(full),
				Meta: vector.Meta{MessageID: msg.ID, ThreadID: msg.ThreadID, ResourceID: msg.ResourceID, Role: msg.Role, CreatedAt: msg.CreatedAt}})
			embed = append(embed, chunk)
		}
	}
	return recs, embed
}

// priorMessages are the messages of a thread before a turn, as the turn
// loaded them (newest last).
type priorMessages struct {
	thread   string
	msgs     []Message
	complete bool            // every message of the thread before the turn
	bare     map[string]bool // messages loaded without content (history.bare)
}

// before returns the last n prior messages of thread when the turn's load
// is enough to know them without a read.
func (p *priorMessages) before(thread string, n int) ([]Message, bool) {
	if p == nil || p.thread != thread || (len(p.msgs) < n && !p.complete) {
		return nil, false
	}
	last := p.msgs[max(len(p.msgs)-n, 0):]
	for i := range last {
		if p.bare[last[i].ID] {
			return nil, false
		}
	}
	return last, true
}

// contextTexts returns, for each message of msgs, the indexed text of the
// ix.context messages before it in its thread: earlier messages of the batch
// (taken as contiguous) and, for the first ones, the turn's loaded history
// (prior) or stored messages read with one newest-first query per thread.
func (m *Memory) contextTexts(ctx context.Context, s *CheckedStore, msgs []Message, prior *priorMessages) (map[string]string, error) {
	ix := m.ix
	if ix.context == 0 || len(msgs) == 0 {
		return nil, nil
	}
	byThread := map[string][]Message{}
	for _, msg := range msgs {
		byThread[msg.ThreadID] = append(byThread[msg.ThreadID], msg)
	}
	out := make(map[string]string, len(msgs))
	for thread, list := range byThread {
		sort.SliceStable(list, func(i, j int) bool { return message.Less(&list[i], &list[j]) })
		before, ok := prior.before(thread, ix.context)
		if !ok {
			first := list[0]
			page, err := s.ListMessages(ctx, store.MessageQuery{ThreadID: thread, Direction: store.Desc, PerPage: ix.context,
				Before: &store.Cursor{CreatedAt: first.CreatedAt, Seq: first.Seq}})
			if err != nil {
				return nil, err
			}
			before = slices.Clone(page.Messages)
			slices.Reverse(before)
		}
		var window []string // the texts of the last ix.context messages, oldest first
		for i := range before {
			window = appendWindow(window, ix.messageText(&before[i]), ix.context)
		}
		for i := range list {
			out[list[i].ID] = strings.Join(window, "\n")
			window = appendWindow(window, ix.messageText(&list[i]), ix.context)
		}
	}
	return out, nil
}

// appendWindow appends text to a sliding window of at most n texts.
func appendWindow(window []string, text string, n int) []string {
	if text == "" {
		return window
	}
	window = append(window, text)
	if len(window) > n {
		window = window[len(window)-n:]
	}
	return window
}
