package recall

import (
	"context"
	"errors"
	"slices"

	"github.com/agentmem/agentmem/core/internal/indexing"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// indexApart indexes msgs like indexMessages, and keeps one message that the
// embedder or the vector store refuses from failing the others: when the
// batch fails with a vector error, its halves are indexed apart, and the
// failing halves split again, down to single messages. It returns the
// messages left unindexed and an error (the last failure), and whether any
// message of msgs was indexed: then the messages left failed on their own.
// When neither half of the batch is indexed, the failure is taken as the
// embedder's or the store's (an outage) and not split further, so that an
// outage costs three calls, not one per message.
func (e *Engine) indexApart(ctx context.Context, s *store.Checked, w Write, msgs []message.Message, prior *indexing.Prior, em *indexing.Embedded) (left []message.Message, anyIndexed bool, err error) {
	if err = e.indexMessages(ctx, s, w, msgs, prior, em); err == nil {
		return nil, true, nil
	}
	a := apart{e: e, s: s, w: w}
	left, err = a.split(ctx, msgs, prior, err)
	return left, a.indexed, err
}

// apart is one indexApart: whether a part of the batch was indexed.
type apart struct {
	e       *Engine
	s       *store.Checked
	w       Write
	indexed bool
}

// split indexes the halves of msgs, which failed together with err, and
// splits the halves that fail again (see indexApart).
func (a *apart) split(ctx context.Context, msgs []message.Message, prior *indexing.Prior, err error) ([]message.Message, error) {
	if len(msgs) < 2 || ctx.Err() != nil || !errors.Is(err, memerr.ErrVector) {
		return msgs, err
	}
	// The batch is contiguous in its thread: the turn's prior is what comes
	// before the first half only; the second half reads its context.
	halves := [2][]message.Message{msgs[:len(msgs)/2], msgs[len(msgs)/2:]}
	priors := [2]*indexing.Prior{prior, nil}
	var errs [2]error
	for i := range halves {
		if errs[i] = a.e.indexMessages(ctx, a.s, a.w, halves[i], priors[i], nil); errs[i] == nil {
			a.indexed = true
		}
	}
	if !a.indexed {
		return msgs, err
	}
	var left []message.Message
	for i := range halves {
		if errs[i] != nil {
			l, e := a.split(ctx, halves[i], priors[i], errs[i])
			left, err = append(left, l...), e
		}
	}
	return left, err
}

// Refused is the error of a reindex whose messages the embedder or the
// vector store refused while it indexed the others: their ids and the last
// refusal. Package core reports it as an IndexFailure.
type Refused struct {
	MessageIDs []string
	Err        error
}

func (r *Refused) Error() string {
	return "messages refused by the embedder or the vector store: " + r.Err.Error()
}

func (r *Refused) Unwrap() error { return r.Err }

// add records the refused ids (once each) and the refusal.
func (r *Refused) add(ids []string, err error) {
	for _, id := range ids {
		if !slices.Contains(r.MessageIDs, id) {
			r.MessageIDs = append(r.MessageIDs, id)
		}
	}
	r.Err = err
}

// result returns r as an error, nil when no message was refused.
func (r *Refused) result() error {
	if len(r.MessageIDs) == 0 {
		return nil
	}
	return r
}
