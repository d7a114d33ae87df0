package core

import (
	"context"
	"github.com/agentmem/agentmem/core/message"
	"log/slog"
	"sync"
	"time"

	"github.com/agentmem/agentmem/core/internal/indexing"
	"github.com/agentmem/agentmem/core/internal/observe"
	"github.com/agentmem/agentmem/core/internal/recall"
)

// effectTimeout bounds one background side effect.
const effectTimeout = 2 * time.Minute

// sideEffect is one thing memory does after messages are saved. Storage is
// the source of truth, so a side effect never fails the save: its failure
// is logged (and, for observational memory, reported by Turn.ObservationErr).
type sideEffect struct {
	name string
	// background effects run detached from the caller's context, bounded
	// by effectTimeout, and are awaited by Memory.Close.
	background bool
	run        func(ctx context.Context) error
}

// effects runs what follows a save: indexing, titles, observational
// memory.
type effects struct {
	model    Model // Options.Model, the title's fallback model
	entry    entry
	spans    spans
	log      *slog.Logger
	bg       *sync.WaitGroup // the Memory's background work
	rec      *recall.Engine
	observer *observe.Observer // nil without a store
}

// saveEffects lists what follows a save, in order: the new messages are
// indexed (indexEffects); for a committed turn, the title and observational
// memory follow, each in the background when configured so. A save that
// embedded the messages first leaves e.
func (ef *effects) saveEffects(st settings, saved []message.Message, turn *Turn, e *indexing.Embedded) []sideEffect {
	var prior *indexing.Prior
	if turn != nil {
		prior = &turn.prior
	}
	fx := indexEffects(ef.rec, st, saved, prior, e)
	if turn == nil {
		return fx
	}
	if st.title != nil && len(saved)+len(turn.saves.stored) > 0 {
		fx = append(fx, sideEffect{name: "title", background: st.title.Background, run: func(ctx context.Context) error {
			ef.maybeTitle(ctx, st, turn.thread, saved)
			return nil
		}})
	}
	if st.observation != nil {
		// Background observation has its own coalescing queue (Observer.AfterSave).
		fx = append(fx, sideEffect{name: "observe", run: func(ctx context.Context) error {
			turn.obsErr = ef.observer.AfterSave(ctx, st.observation, turn.thread, observe.Pending{Known: turn.knownUnobserved(saved)})
			return nil
		}})
	}
	return fx
}

// indexEffects index the saved messages inline (so that the next turn, or
// the next model call of an agent loop, can recall them; prior are the
// thread's messages before them, when known); messages whose earlier
// indexing failed are retried in the background (a bounded batch per
// resource, never on the caller's latency).
func indexEffects(rec *recall.Engine, st settings, saved []message.Message, prior *indexing.Prior, e *indexing.Embedded) []sideEffect {
	if st.recall == nil || len(saved) == 0 {
		return nil
	}
	indexed := false
	return []sideEffect{
		{name: "index", run: func(ctx context.Context) error {
			indexed = rec.Index(ctx, st.write(), saved, prior, e)
			return nil
		}},
		{name: "index retry", background: true, run: func(ctx context.Context) error {
			if indexed {
				rec.Retry(ctx, st.write(), saved)
			}
			return nil
		}},
	}
}

// runEffects runs side effects in order, inline or in the background.
func (ef *effects) runEffects(ctx context.Context, fx []sideEffect) {
	for _, f := range fx {
		if !f.background {
			ef.runEffect(ctx, f)
			continue
		}
		ef.bg.Add(1)
		go func() {
			defer ef.bg.Done()
			bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), effectTimeout)
			defer cancel()
			ef.runEffect(bctx, f)
		}()
	}
}

func (ef *effects) runEffect(ctx context.Context, f sideEffect) {
	ctx, sp := ef.spans.startEffect(ctx, f)
	err := sp.End(f.run(ctx))
	if err != nil {
		ef.log.WarnContext(ctx, "agentmem: "+f.name+" after save failed", "err", err)
	}
}
