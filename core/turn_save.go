package core

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"github.com/agentmem/agentmem/core/message"
	"hash"
	"slices"
	"time"

	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/internal/indexing"
	"github.com/agentmem/agentmem/core/internal/window"
)

// turnSaves is what a turn has stored so far: the agent loop's messages are
// saved at every Step (as Mastra saves at every step), so a process that dies
// mid-loop loses at most the step in flight, and Commit saves what is left.
type turnSaves struct {
	input bool // the filtered input is stored
	// loop holds the response's messages by position (Step's produced,
	// then Commit's response, which starts with them): the id and time the
	// turn gave each, kept for every later save of it, so that saving again
	// (a retried Step or Commit, a message whose tool call ids were made
	// afresh) upserts the stored row instead of adding a copy.
	loop []loopMessage
	// stored is what the turn's steps stored, in order: Commit's
	// observational memory counts it, later steps index with it as context.
	stored []message.Message
}

// loopMessage is one message of the agent loop as the turn saves it.
type loopMessage struct {
	id        string
	createdAt time.Time
	shape     [sha256.Size]byte // what makes it the same message (see shapeOf)
	saved     bool
	exact     [sha256.Size]byte // of the stored content, when saved
}

// saving reports whether the turn stores anything (Commit's rule).
func (t *Turn) saving() bool {
	return !t.st.readOnly && (t.st.historyEnabled || t.st.observation != nil)
}

// loopBatch returns the messages of resp that are new or changed since the
// turn last stored them, with the ids and times the turn gave them, and the
// positions they hold in resp. A message at a position the turn saved
// before is the same message when it has the same shape (and, when it
// carries an id, the same id); a different one there (a caller that passed
// only its newest messages) is new and keeps the stored one untouched.
func (t *Turn) loopBatch(resp []message.Message) ([]message.Message, []int, [][sha256.Size]byte) {
	var (
		batch  []message.Message
		at     []int
		exacts [][sha256.Size]byte
	)
	for i := range resp {
		r := resp[i]
		exact := exactOf(&r)
		if i < len(t.saves.loop) {
			rec := &t.saves.loop[i]
			if rec.saved && rec.exact == exact && (r.ID == "" || r.ID == rec.id) {
				continue
			}
			if (r.ID == "" || r.ID == rec.id) && rec.shape == shapeOf(&r) {
				r.ID, r.CreatedAt = rec.id, rec.createdAt
				batch, at, exacts = append(batch, r), append(at, i), append(exacts, exact)
				continue
			}
		}
		rec := loopMessage{id: r.ID, createdAt: r.CreatedAt, shape: shapeOf(&r)}
		if rec.id == "" {
			rec.id = t.m.opts.NewID()
		}
		if rec.createdAt.IsZero() {
			rec.createdAt = t.m.clock.Stamp()
		} else {
			rec.createdAt = rec.createdAt.UTC().Truncate(time.Microsecond)
		}
		if i < len(t.saves.loop) {
			t.saves.loop[i] = rec
		} else {
			t.saves.loop = append(t.saves.loop, rec)
		}
		r.ID, r.CreatedAt = rec.id, rec.createdAt
		batch, at, exacts = append(batch, r), append(at, i), append(exacts, exact)
	}
	return batch, at, exacts
}

// markSaved records that the loop messages at the given positions are
// stored with the given contents.
func (t *Turn) markSaved(at []int, exacts [][sha256.Size]byte) {
	for k, i := range at {
		t.saves.loop[i].saved, t.saves.loop[i].exact = true, exacts[k]
	}
}

// processOutput runs the output processors on response messages about to
// be saved.
func (t *Turn) processOutput(ctx context.Context, resp []message.Message) ([]message.Message, error) {
	for _, p := range t.m.opts.Processors {
		if op, ok := p.(OutputProcessor); ok {
			var err error
			in := ProcessorInput{ThreadID: t.req.ThreadID, ResourceID: t.req.ResourceID, Messages: resp, Tokenizer: t.m.tk}
			if resp, err = op.ProcessOutput(ctx, in); err != nil {
				return nil, err
			}
		}
	}
	return resp, nil
}

// persistBatch is the batch a save of the turn stores: the filtered input
// unless stored, then the (processed) loop messages, made persistable and
// counted.
func (t *Turn) persistBatch(op string, loop []message.Message) []message.Message {
	var batch []message.Message
	var input []message.Message
	if !t.saves.input {
		input = window.Clone(t.persist)
	}
	for i, msg := range slices.Concat(input, loop) {
		if p, ok := t.m.rules.Prepare(msg); ok {
			if i >= len(input) {
				// A step counted the message as the prompt shows it; the
				// count stored is of the message as stored. The input keeps
				// Begin's count of its stored form.
				p.Tokens, p.TokenEncoding = 0, ""
			}
			batch = append(batch, p)
		}
	}
	budget.CountAll(batch, t.m.tokens.count)
	return batch
}

// saveStep stores, at a step of the agent loop, what the turn has not
// stored yet: the input at the first step, then the loop's new (or changed)
// messages, after the output processors, and indexes them for semantic
// recall as SaveMessages does. A failed save is logged and left to the next
// step or Commit, which save the same messages under the same ids; only a
// processor's error is returned.
func (t *Turn) saveStep(ctx context.Context, resp []message.Message) error {
	if !t.saving() {
		return nil
	}
	m := t.m
	loop, at, exacts := t.loopBatch(resp)
	if len(loop) == 0 && t.saves.input {
		return nil
	}
	processed, err := t.processOutput(ctx, loop)
	if err != nil {
		return err
	}
	batch := t.persistBatch("Step", processed)
	if len(batch) > 0 {
		s, err := m.entry.checked()
		if err == nil {
			var saved []message.Message
			var e *indexing.Embedded
			saved, e, err = m.rec.SaveIndexed(ctx, s, t.st.recall, batch, &t.prior, func() ([]message.Message, error) { return s.SaveMessages(ctx, batch) })
			if err == nil {
				t.stepStored(saved)
				m.effects.runEffects(ctx, indexEffects(m.rec, t.st, saved, &t.prior, e))
			}
		}
		if err != nil {
			m.log.WarnContext(ctx, "agentmem: saving the agent loop's messages at a step failed; the next step or Commit saves them", "err", err, "messages", len(batch))
			return nil
		}
	}
	t.saves.input = true
	t.markSaved(at, exacts)
	return nil
}

// stepStored records what a step stored: Commit's observational memory
// counts it, and the next saves index with it as the thread's context.
func (t *Turn) stepStored(saved []message.Message) {
	t.saves.stored = append(t.saves.stored, saved...)
	t.prior.Messages = slices.Concat(t.prior.Messages, saved)
}

// exactOf fingerprints a message's role and content as stored.
func exactOf(msg *message.Message) [sha256.Size]byte {
	h := sha256.New()
	writeField(h, string(msg.Role))
	b, err := json.Marshal(msg.Content)
	if err != nil { // validated before: cannot happen; never equal then
		b = []byte(msg.ID + err.Error())
	}
	h.Write(b)
	return [sha256.Size]byte(h.Sum(nil))
}

// shapeOf fingerprints what makes two conversions of one message the same
// message: role, part types, texts and tool names, states, arguments and
// results, but not the tool call ids or the metadata, which adapters make
// afresh for calls that came without an id.
func shapeOf(msg *message.Message) [sha256.Size]byte {
	h := sha256.New()
	writeField(h, string(msg.Role))
	for _, p := range msg.Content.Parts {
		writeField(h, p.Type)
		writeField(h, p.Text)
		writeField(h, p.Reasoning)
		if ti := p.ToolInvocation; ti != nil {
			writeField(h, ti.ToolName)
			writeField(h, ti.State)
			writeField(h, string(ti.Args))
			writeField(h, string(ti.Result))
		}
	}
	return [sha256.Size]byte(h.Sum(nil))
}

// writeField writes s length-prefixed, so that fields cannot run together.
func writeField(h hash.Hash, s string) {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
	h.Write(n[:])
	h.Write([]byte(s))
}
