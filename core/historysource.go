package core

import (
	"context"

	"github.com/agentmem/agentmem/core/store"
)

// historySource is where a turn's remembered conversation comes from: the
// sliding window of recent messages after the persisted boundary, or, with
// observational memory on, the observations and every message not yet
// observed. Begin asks the source instead of branching on the feature.
type historySource interface {
	// load reads the remembered messages of th, chronological, for a turn
	// with input.
	load(ctx context.Context, s *store.Checked, th Thread, input []Message) ([]Message, error)
	// hasPast reports whether the thread has messages older than those
	// loaded (the input filter treats such a thread as non-empty).
	hasPast() bool
	// frame returns the system messages the source adds after the
	// instructions (the observations) and messages of other threads to show
	// in the fenced other-thread block.
	frame() (system, others []Message)
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
func (m *Memory) newHistorySource(st settings) historySource {
	if st.observation != nil {
		return &observedHistory{m: m, set: st.observation}
	}
	return &windowHistory{m: m, st: st}
}

// windowHistory is the count- and/or token-bounded window of the newest
// messages after the persisted boundary.
type windowHistory struct {
	m      *Memory
	st     settings
	done   bool
	unread map[string]bool
}

func (w *windowHistory) load(ctx context.Context, s *store.Checked, th Thread, input []Message) ([]Message, error) {
	var links []string
	for i := range input {
		links = append(links, input[i].ToolCallIDs()...)
	}
	h, err := w.m.loadHistory(ctx, s, th, w.st, store.DateRange{}, links)
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

func (w *windowHistory) frame() (system, others []Message) { return nil, nil }
func (w *windowHistory) trims() bool                       { return w.st.tokenBudget() }

// observedHistory is observational memory's view: the observed part of the
// conversation is in the observations (fenced system messages, chunked so
// that the prefix stays byte-identical while none is added), the rest is
// loaded whole (up to a safety cap) and never trimmed.
type observedHistory struct {
	m    *Memory
	set  *observationSettings
	view observationView
}

func (o *observedHistory) load(ctx context.Context, s *store.Checked, th Thread, _ []Message) ([]Message, error) {
	v, err := o.m.loadObservations(ctx, s, o.set, th)
	if err != nil {
		return nil, err
	}
	o.view = v
	return v.own, nil
}

func (o *observedHistory) hasPast() bool { return o.view.past }

func (o *observedHistory) frame() (system, others []Message) {
	return o.m.observationMessages(o.view.rec), o.view.other
}

func (o *observedHistory) trims() bool           { return false }
func (o *observedHistory) complete() bool        { return false }
func (o *observedHistory) bare() map[string]bool { return nil }
