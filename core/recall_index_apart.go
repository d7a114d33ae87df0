package core

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentmem/agentmem/core/internal/indexing"
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
func (m *Memory) indexApart(ctx context.Context, s *store.Checked, st settings, msgs []Message, prior *indexing.Prior, e *indexing.Embedded) (left []Message, anyIndexed bool, err error) {
	if err = m.indexMessages(ctx, s, st, msgs, prior, e); err == nil {
		return nil, true, nil
	}
	a := apart{m: m, s: s, st: st}
	left, err = a.split(ctx, msgs, prior, err)
	return left, a.indexed, err
}

// apart is one indexApart: whether a part of the batch was indexed.
type apart struct {
	m       *Memory
	s       *store.Checked
	st      settings
	indexed bool
}

// split indexes the halves of msgs, which failed together with err, and
// splits the halves that fail again (see indexApart).
func (a *apart) split(ctx context.Context, msgs []Message, prior *indexing.Prior, err error) ([]Message, error) {
	if len(msgs) < 2 || ctx.Err() != nil || !errors.Is(err, ErrVector) {
		return msgs, err
	}
	// The batch is contiguous in its thread: the turn's prior is what comes
	// before the first half only; the second half reads its context.
	halves := [2][]Message{msgs[:len(msgs)/2], msgs[len(msgs)/2:]}
	priors := [2]*indexing.Prior{prior, nil}
	var errs [2]error
	for i := range halves {
		if errs[i] = a.m.indexMessages(ctx, a.s, a.st, halves[i], priors[i], nil); errs[i] == nil {
			a.indexed = true
		}
	}
	if !a.indexed {
		return msgs, err
	}
	var left []Message
	for i := range halves {
		if errs[i] != nil {
			l, e := a.split(ctx, halves[i], priors[i], errs[i])
			left, err = append(left, l...), e
		}
	}
	return left, err
}

// IndexFailure reports the messages that Reindex (or ReindexResource) could
// not index because the embedder or the vector store refused them; the
// others were indexed. They stay recorded as unindexed (Unindexed counts
// them) and the next Reindex tries them again; a message refused while
// others of its batch were indexed is not retried by later writes. Err is
// the last refusal (errors.Is(err, ErrVector) holds).
type IndexFailure struct {
	MessageIDs []string
	Err        error
}

func (f *IndexFailure) Error() string {
	ids := f.MessageIDs
	more := ""
	if len(ids) > 10 {
		ids, more = ids[:10], fmt.Sprintf(" and %d more", len(f.MessageIDs)-10)
	}
	return fmt.Sprintf("agentmem: %d messages could not be indexed for semantic recall (%s%s); they stay recorded as unindexed: %v",
		len(f.MessageIDs), strings.Join(ids, ", "), more, f.Err)
}

func (f *IndexFailure) Unwrap() error { return f.Err }

// Merge adds the messages of err to f when err is an *IndexFailure (then
// it returns nil), and returns any other err as it is: a loop of Reindex
// calls goes on past refused messages and reports them all at the end
// (Result).
func (f *IndexFailure) Merge(err error) error {
	var other *IndexFailure
	if !errors.As(err, &other) {
		return err
	}
	for _, id := range other.MessageIDs {
		if !slices.Contains(f.MessageIDs, id) {
			f.MessageIDs = append(f.MessageIDs, id)
		}
	}
	f.Err = other.Err
	return nil
}

// Result returns f as an error, nil when no message failed.
func (f *IndexFailure) Result() error {
	if len(f.MessageIDs) == 0 {
		return nil
	}
	return f
}

// messageIDs returns the ids of msgs.
func messageIDs(msgs []Message) []string {
	out := make([]string, len(msgs))
	for i := range msgs {
		out[i] = msgs[i].ID
	}
	return out
}
