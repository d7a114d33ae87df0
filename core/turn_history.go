package core

import (
	"context"
	"slices"
	"sync"

	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/internal/observe"
	"github.com/agentmem/agentmem/core/internal/window"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// historyPageSize is how many messages one newest-first history read fetches.
const historyPageSize = 64

// maxHistoryPage caps one history read.
const maxHistoryPage = 1000

// historyReader reads the history of a thread for a prompt and counts
// the prompt's system messages.
type historyReader struct {
	tk       Tokenizer
	tokens   *messageTokens
	skipped  *skippedParts
	observer *observe.Observer // nil without a store
	sysMu    sync.Mutex
	sysCache map[string]int // token counts of system texts
}

// history is what loadHistory read: chronological messages after the boundary.
type history struct {
	messages []message.Message
	// bare holds the ids of messages read without content (beyond what the
	// token budget can keep; see store.WindowReader): fillBare completes
	// those a step keeps.
	bare map[string]bool
	// complete: the load reached the start of the thread and excluded
	// nothing, so messages are every message before the turn.
	complete bool
	reads    int // storage round trips, for tests
}

// loadHistory reads the newest messages of a thread, newest first in keyset
// pages, stopping at the count cap, once the token budget is exceeded, at the
// persisted boundary (token mode, same limits only) or at the start of the
// thread. Its cost is O(window), never O(thread); under a token budget the
// rows beyond what a trim can keep are read bare (historyPage). A page edge may separate a
// result row from its older call row; that is safe because a result part
// carries its call (name and arguments), and a call row is never newer than
// its result.
// rng is the caller's date range (Recall); the later of its start and the
// boundary applies.
// links are the tool-call ids of the turn's input: their stored calls are
// decoded wherever the window reaches (see store.WindowFit.Links).
func (hr *historyReader) loadHistory(ctx context.Context, s *store.Checked, th store.Thread, st settings, rng store.DateRange, md message.Filter, links []string) (history, error) {
	if !st.historyEnabled {
		return history{}, nil
	}
	var h history
	var b *store.Boundary
	if st.tokenBudget() && th.Boundary != nil &&
		th.Boundary.SameEpoch(store.Boundary{MaxTokens: st.maxTokens, AtMaxRemoveTokens: st.atMaxRemove}) {
		b = th.Boundary
	}
	q := store.MessageQuery{ThreadID: th.ID, ResourceID: th.ResourceID, Direction: store.Desc, PerPage: historyPageSize, Range: rng, Metadata: md}
	if b != nil && (rng.Start == nil || b.CreatedAt.After(*rng.Start)) {
		start := b.CreatedAt
		q.Range.Start, q.Range.StartExclusive = &start, false
	}
	switch {
	case st.maxMessages > 0 && !st.tokenBudget():
		q.PerPage = st.maxMessages
	case st.tokenBudget():
		// Size the first page to the budget so a typical window is one read.
		q.PerPage = min(max(st.maxTokens/32, historyPageSize), maxHistoryPage)
		if st.maxMessages > 0 {
			q.PerPage = min(q.PerPage-1, st.maxMessages) + 1 // no overflow at LastN(math.MaxInt)
		}
	}
	var newestFirst []message.Message
	tokens := 0
	for {
		page, err := hr.historyPage(ctx, s, st, q, tokens, links)
		if err != nil {
			return history{}, err
		}
		h.reads++
		hr.skipped.Report(ctx, page.Messages)
		if newestFirst == nil {
			// The first page's slice is the store's own copy: keep what it
			// holds in place rather than copying a window's worth of messages.
			newestFirst = page.Messages[:0]
		}
		newestFirst = slices.Grow(newestFirst, len(page.Messages))
		for i, msg := range page.Messages {
			if msg.Role == message.RoleSystem || (b != nil && b.Excludes(msg.CreatedAt, msg.ID)) {
				continue
			}
			if page.Bare != nil && page.Bare[i] {
				if h.bare == nil {
					h.bare = map[string]bool{}
				}
				h.bare[msg.ID] = true
			} else {
				links = append(links, msg.ToolCallIDs()...)
			}
			hr.ensureTokens(&msg)
			newestFirst = append(newestFirst, msg)
			tokens += msg.Tokens
		}
		full := (st.maxMessages > 0 && len(newestFirst) >= st.maxMessages) ||
			(st.tokenBudget() && tokens > st.maxTokens)
		if !page.HasMore || len(page.Messages) == 0 || full {
			h.complete = b == nil && !full && (!page.HasMore || len(page.Messages) == 0)
			break
		}
		last := page.Messages[len(page.Messages)-1]
		q.Before = &store.Cursor{CreatedAt: last.CreatedAt, Seq: last.Seq}
		if st.tokenBudget() && tokens > 0 {
			// Next page: what the remaining budget needs at the average size so far.
			avg := max(tokens/len(newestFirst), 1)
			q.PerPage = min(max((st.maxTokens-tokens)/avg*3/2+1, historyPageSize), maxHistoryPage)
		}
	}
	slices.Reverse(newestFirst)
	h.messages = window.CapByCount(newestFirst, st.maxMessages)
	return h, nil
}

// historyPage reads one newest-first page of history; under a token budget
// only the rows a trim can keep, and the tool rows linked to them or to
// links, are decoded (used: the tokens of the messages earlier pages
// listed). The budget's fixed costs known here are the reply priming and
// AtMaxRemoveTokens; instructions, working memory and input are not, so up
// to their worth of rows is decoded and then dropped.
func (hr *historyReader) historyPage(ctx context.Context, s *store.Checked, st settings, q store.MessageQuery, used int, links []string) (store.WindowPage, error) {
	if !st.tokenBudget() {
		page, err := s.ListMessages(ctx, q)
		return store.WindowPage{MessagePage: page}, err
	}
	fits := st.maxTokens - budget.ReplyPriming
	return s.ListWindow(ctx, q, store.WindowFit{Encoding: hr.tk.Encoding(), Fits: fits, Keep: fits - st.atMaxRemove, Used: used, Links: links})
}

// fillBare returns msgs with the content of those read bare loaded (one
// GetMessages for all). Only a message a trim keeps although the read did
// not expect it (one larger than the room skipped before it) needs it.
func (hr *historyReader) fillBare(ctx context.Context, s *store.Checked, msgs []message.Message, bare map[string]bool) ([]message.Message, error) {
	var ids []string
	for i := range msgs {
		if bare[msgs[i].ID] {
			ids = append(ids, msgs[i].ID)
		}
	}
	if len(ids) == 0 {
		return msgs, nil
	}
	found, err := s.GetMessages(ctx, ids)
	if err != nil {
		return nil, err
	}
	hr.skipped.Report(ctx, found)
	content := make(map[string]message.Content, len(found))
	for _, f := range found {
		content[f.ID] = f.Content
	}
	out := slices.Clone(msgs)
	for i := range out {
		if c, ok := content[out[i].ID]; ok && bare[out[i].ID] {
			out[i].Content = c
		}
	}
	return out, nil
}

// ensureTokens counts a stored message whose count is missing or was made
// with another encoding (messageTokens.Ensure).
func (hr *historyReader) ensureTokens(msg *message.Message) { hr.tokens.Ensure(msg) }

// historySource is where a turn's remembered conversation comes from: the
// sliding window of recent messages after the persisted boundary, or, with
// observational memory on, the observations and every message not yet
// observed. Begin asks the source instead of branching on the feature.
type historySource interface {
	// load reads the remembered messages of th, chronological, for a turn
	// with input.
	load(ctx context.Context, s *store.Checked, th store.Thread, input []message.Message) ([]message.Message, error)
	// hasPast reports whether the thread has messages older than those
	// loaded (the input filter treats such a thread as non-empty).
	hasPast() bool
	// frame returns the system messages the source adds after the
	// instructions (the observations) and messages of other threads to show
	// in the fenced other-thread block.
	frame() (system, others []message.Message)
	// trims reports whether the token budget trims this source's messages.
	trims() bool
	// complete reports whether the loaded messages are every message of
	// the thread before the turn (used as indexing context without a read).
	complete() bool
	// bare returns the ids of loaded messages read without content
	// (history.bare).
	bare() map[string]bool
}

// newHistorySource picks the source for the turn's settings.
func (hr *historyReader) newHistorySource(st settings) historySource {
	if st.observation != nil {
		return &observedHistory{hr: hr, set: st.observation}
	}
	return &windowHistory{hr: hr, st: st}
}

// windowHistory is the count- and/or token-bounded window of the newest
// messages after the persisted boundary.
type windowHistory struct {
	hr     *historyReader
	st     settings
	done   bool
	unread map[string]bool
}

func (w *windowHistory) load(ctx context.Context, s *store.Checked, th store.Thread, input []message.Message) ([]message.Message, error) {
	var links []string
	for i := range input {
		links = append(links, input[i].ToolCallIDs()...)
	}
	h, err := w.hr.loadHistory(ctx, s, th, w.st, store.DateRange{}, message.Filter{}, links)
	w.done, w.unread = h.complete, h.bare
	return h.messages, err
}

func (w *windowHistory) bare() map[string]bool { return w.unread }

func (w *windowHistory) complete() bool { return w.done }

// hasPast is true when the load stopped before the start of the thread: at
// the window's limit or at the trim boundary, which may hide every stored
// message. Without message history nothing is read and the whole input is
// kept, as Mastra keeps it when no history loader runs.
func (w *windowHistory) hasPast() bool { return w.st.historyEnabled && !w.done }

func (w *windowHistory) frame() (system, others []message.Message) { return nil, nil }
func (w *windowHistory) trims() bool                               { return w.st.tokenBudget() }

// observedHistory is observational memory's view: the observed part of the
// conversation is in the observations (fenced system messages, chunked so
// that the prefix stays byte-identical while none is added), the rest is
// loaded whole (up to a safety cap) and never trimmed.
type observedHistory struct {
	hr   *historyReader
	set  *observe.Settings
	view observe.View
}

func (o *observedHistory) load(ctx context.Context, s *store.Checked, th store.Thread, _ []message.Message) ([]message.Message, error) {
	v, err := o.hr.observer.Load(ctx, o.set, th)
	if err != nil {
		return nil, err
	}
	o.view = v
	return v.Own, nil
}

func (o *observedHistory) hasPast() bool { return o.view.Past }

func (o *observedHistory) frame() (system, others []message.Message) {
	texts := o.view.SystemTexts()
	system = make([]message.Message, 0, len(texts))
	for _, t := range texts {
		system = append(system, o.hr.systemMessage(t))
	}
	return system, o.view.Other
}

// allUnobserved returns the thread's unobserved messages as loaded, or nil
// when they may be more (the cap was reached, or other threads share the
// record).
func (o *observedHistory) allUnobserved() []message.Message {
	if o.set.Scope != store.ScopeThread || len(o.view.Own) >= o.set.MaxUnobserved {
		return nil
	}
	return slices.Clip(o.view.Own)
}

func (o *observedHistory) trims() bool           { return false }
func (o *observedHistory) complete() bool        { return false }
func (o *observedHistory) bare() map[string]bool { return nil }
