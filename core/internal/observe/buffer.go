package observe

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"github.com/agentmem/agentmem/core/internal/telemetry"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// maxAttempts bounds the re-reads after lost compare-and-sets.
const maxAttempts = 3

// buffered is the cycle after Commit when buffering is on. It makes
// no model call on the caller's path unless the unobserved messages pass
// BlockAfter (or the observations ReflectBlockAfter): at MessageTokens it
// activates buffered chunks (a store write), at every BufferTokens of
// unbuffered messages it starts a background buffer job, and likewise for
// reflection. Past BlockAfter it waits for the record's buffer job (bounded
// by ctx), activates every chunk and observes the rest synchronously.
func (c *cycle) buffered(ctx context.Context, s *BufferSettings) error {
	rec, err := c.Store.GetObservations(ctx, c.key)
	if err != nil {
		return err
	}
	if s.BufferTokens > 0 {
		rec, err = c.observeBuffered(ctx, s, rec)
	} else { // only reflection buffers
		rec, err = c.observeBatches(ctx, false, c.p.InFlight)
	}
	if err != nil {
		return err
	}
	return c.reflectBuffered(ctx, s, rec)
}

func (c *cycle) observeBuffered(ctx context.Context, s *BufferSettings, rec store.ObservationRecord) (store.ObservationRecord, error) {
	msgs, err := c.tally(ctx, rec)
	if err != nil {
		return rec, err
	}
	pending := Tokens(msgs) + c.p.InFlight
	if pending >= s.MessageTokens && len(rec.Buffer.Chunks) > 0 {
		if rec, err = c.activate(ctx, s, pending, pending >= s.BlockAfter); err != nil {
			return rec, err
		}
		msgs = Remaining(rec, msgs)
		pending = Tokens(msgs) + c.p.InFlight
	}
	if pending >= s.BlockAfter {
		return c.blockingObserve(ctx, s)
	}
	if unbuffered(rec, msgs) >= s.BufferTokens {
		c.rt.scheduleJob("buffer|"+c.key, c.Jobs, func() { c.bufferJob(c.background) })
	}
	return rec, nil
}

// blockingObserve is the synchronous path past BlockAfter: the buffer job in
// flight finishes first, bounded by the timeout (its chunk is activated, not
// redone), every chunk is activated and observeBatches observes the rest.
func (c *cycle) blockingObserve(ctx context.Context, s *BufferSettings) (store.ObservationRecord, error) {
	wctx, cancel := context.WithTimeout(ctx, c.set.Timeout)
	err := c.quiesce(wctx)
	cancel()
	if err != nil && ctx.Err() != nil {
		return store.ObservationRecord{}, err
	}
	if _, err := c.activate(ctx, s, 0, true); err != nil {
		return store.ObservationRecord{}, err
	}
	return c.observeBatches(ctx, true, 0)
}

// flush prepares observing everything now (ObserveNow): it waits for the
// record's buffer job (bounded by ctx) and activates every chunk.
func (c *cycle) flush(ctx context.Context, s *BufferSettings) error {
	if err := c.quiesce(ctx); err != nil {
		return err
	}
	_, err := c.activate(ctx, s, 0, true)
	return err
}

// quiesce waits for the record's buffer and reflection jobs: a synchronous
// observation then has no background writer to lose its compare-and-set to
// (which would send its messages to the observer twice). No new job starts
// meanwhile: jobs are started by cycles, which hold the record's lock.
func (c *cycle) quiesce(ctx context.Context) error {
	if err := c.rt.Wait(ctx, "buffer|"+c.key); err != nil {
		return err
	}
	return c.rt.Wait(ctx, "reflect|"+c.key)
}

// Remaining is msgs without those rec has observed.
func Remaining(rec store.ObservationRecord, msgs []message.Message) []message.Message {
	observed := rec.ObservedFunc()
	out := msgs[:0:0]
	for _, m := range msgs {
		if !observed(m.CreatedAt, m.ID) {
			out = append(out, m)
		}
	}
	return out
}

// unbuffered is the token sum of msgs that no chunk of rec covers.
func unbuffered(rec store.ObservationRecord, msgs []message.Message) int {
	covered := map[string]bool{}
	for _, c := range rec.Buffer.Chunks {
		for _, m := range c.Messages {
			covered[m.ID] = true
		}
	}
	n := 0
	for _, m := range msgs {
		if !covered[m.ID] {
			n += m.Tokens
		}
	}
	return n
}

// bufferJob observes the oldest unobserved, unbuffered messages (up to
// MaxBatchTokens) and stores the result as a chunk. A chunk whose messages
// were observed or buffered meanwhile (another writer won) is dropped: the
// record never receives the same messages twice.
func (c *cycle) bufferJob(ctx context.Context) {
	rec, err := c.Store.GetObservations(ctx, c.key)
	if err != nil {
		c.Log.WarnContext(ctx, "agentmem: observation buffering failed", "key", c.key, "err", err)
		return
	}
	msgs, err := c.unobserved(ctx, rec, store.Asc)
	if err != nil {
		c.Log.WarnContext(ctx, "agentmem: observation buffering failed", "key", c.key, "err", err)
		return
	}
	var batch []message.Message
	sum := 0
	for _, m := range msgs {
		if rec.Buffer.Covers(m.ID) {
			continue
		}
		if len(batch) > 0 && sum+m.Tokens > c.set.MaxTokensPerBatch {
			break
		}
		batch, sum = append(batch, m), sum+m.Tokens
	}
	if len(batch) == 0 {
		return
	}
	text, hints, err := c.observe(ctx, rec, batch, false) // buffering is thread scope only
	c.saveHints(ctx, c.th.ID, hints)
	if err != nil {
		c.Log.WarnContext(ctx, "agentmem: observation buffering failed; the messages are buffered or observed later", "key", c.key, "err", err)
		return
	}
	chunk := store.BufferedChunk{Observations: text, Tokens: c.Tokenizer.Count(text), MessageTokens: sum, Generation: rec.Generation, CreatedAt: time.Now().UTC()}
	for _, m := range batch {
		chunk.Messages = append(chunk.Messages, store.ObservedMessage{ID: m.ID, CreatedAt: m.CreatedAt})
	}
	err = c.update(ctx, func(cur *store.ObservationRecord) bool {
		if !continues(*cur, rec) {
			return false // cleared meanwhile: the clear wins
		}
		observed := cur.ObservedFunc()
		for _, m := range chunk.Messages {
			if observed(m.CreatedAt, m.ID) || cur.Buffer.Covers(m.ID) {
				return false
			}
		}
		cur.DropObservedChunks()
		cur.Buffer.Chunks = append(cur.Buffer.Chunks, chunk)
		return true
	})
	if err != nil {
		c.Log.WarnContext(ctx, "agentmem: storing a buffered observation failed; its messages are observed later", "key", c.key, "err", err)
	}
}

// continues reports whether cur grew from base by appends, activations and
// reflections; a cleared record (ClearObservations) does not.
func continues(cur, base store.ObservationRecord) bool {
	if cur.Generation != base.Generation {
		return cur.Generation > base.Generation
	}
	return strings.HasPrefix(cur.Observations, base.Observations) && !cur.LastObservedAt.Before(base.LastObservedAt)
}

// update applies f to the stored record and writes it by compare-and-set,
// re-reading after a lost one (f is cheap: no model call); f returns false
// to write nothing.
func (c *cycle) update(ctx context.Context, f func(cur *store.ObservationRecord) bool) error {
	for attempt := 0; attempt < 4*maxAttempts; attempt++ {
		cur, err := c.Store.GetObservations(ctx, c.key)
		if err != nil {
			return err
		}
		next := cur.Clone()
		if !f(&next) {
			return nil
		}
		_, err = c.Store.PutObservations(ctx, next, cur.Version)
		if !errors.Is(err, memerr.ErrConflict) {
			return err
		}
	}
	return memerr.Errorf(memerr.CodeConflict, "observe", "observations of %s kept changing", c.key)
}

// activate moves buffered chunks into the active observations in one write:
// the oldest chunks, as many as bring the pending unobserved tokens nearest
// to what bufferActivation keeps (Mastra's chunk-boundary rule), or all with
// all. Each chunk's observations are appended and its messages marked
// observed; a chunk over messages already observed is dropped, not applied.
// It returns the stored record.
func (c *cycle) activate(ctx context.Context, s *BufferSettings, pending int, all bool) (store.ObservationRecord, error) {
	ctx, sp := c.Telemetry.Start(ctx, "activate", telemetry.ThreadAttrs(c.th.ID, c.th.ResourceID, 0)...)
	rec, n, err := c.activateChunks(ctx, s, pending, all)
	sp.Set(telemetry.AttrChunksActivated.Int(n), telemetry.AttrObservationToken.Int(rec.ObservationTokens))
	return rec, sp.End(err)
}

// activateChunks is activate; it also returns the number of chunks
// activated.
func (c *cycle) activateChunks(ctx context.Context, s *BufferSettings, pending int, all bool) (store.ObservationRecord, int, error) {
	for attempt := 0; attempt < maxAttempts; attempt++ {
		cur, err := c.Store.GetObservations(ctx, c.key)
		if err != nil {
			return cur, 0, err
		}
		next := cur.Clone()
		next.DropObservedChunks()
		if len(next.Buffer.Chunks) == 0 && len(cur.Buffer.Chunks) == 0 {
			return cur, 0, nil
		}
		n := len(next.Buffer.Chunks)
		if !all {
			if attempt > 0 { // another writer changed what is pending
				msgs, err := c.tally(ctx, cur)
				if err != nil {
					return cur, 0, err
				}
				pending = Tokens(msgs) + c.p.InFlight
			}
			n = activationCount(next.Buffer.Chunks, s, pending)
		}
		chunks := next.Buffer.Chunks
		next.Buffer.Chunks = chunks[n:]
		batches, observed := chunkMessages(chunks[:n])
		times, err := c.observedBefore(ctx, cur, Cutoff(cur, observed))
		if err != nil {
			return cur, 0, err
		}
		for i, chunk := range chunks[:n] {
			next = Append(next, batches[i], chunk.Observations, times, c.Tokenizer)
		}
		out, err := c.Store.PutObservations(ctx, next, cur.Version)
		if err == nil {
			return out, n, nil
		}
		if !errors.Is(err, memerr.ErrConflict) {
			return out, 0, err
		}
	}
	out, err := c.Store.GetObservations(ctx, c.key)
	return out, 0, err
}

// chunkMessages returns the messages (ids and times) of each chunk, and of
// all of them.
func chunkMessages(chunks []store.BufferedChunk) (batches [][]message.Message, all []message.Message) {
	for _, c := range chunks {
		batch := make([]message.Message, len(c.Messages))
		for i, m := range c.Messages {
			batch[i] = message.Message{ID: m.ID, CreatedAt: m.CreatedAt}
		}
		batches, all = append(batches, batch), append(all, batch...)
	}
	return batches, all
}

// activationCount is how many of the oldest chunks to activate with pending
// unobserved tokens: the chunk boundary nearest above the target (pending
// minus the retention floor), unless that overshoots by more than 95% of
// the floor or leaves less than min(1000, floor), then the nearest below.
func activationCount(chunks []store.BufferedChunk, s *BufferSettings, pending int) int {
	floor := float64(s.MessageTokens) * (1 - min(1, s.Activation))
	if s.Activation >= 1000 {
		floor = s.Activation
	}
	target := float64(pending) - floor
	if target <= 0 || len(chunks) == 0 {
		return 0
	}
	over, overTok, under, underTok := 0, 0.0, 0, 0.0
	sum := 0.0
	for i, c := range chunks {
		sum += float64(c.MessageTokens)
		if sum >= target {
			if over == 0 {
				over, overTok = i+1, sum
			}
		} else if sum > underTok {
			under, underTok = i+1, sum
		}
	}
	minLeft := min(1000, floor)
	switch {
	case over > 0 && overTok-target <= floor*0.95 && float64(pending)-overTok >= minLeft:
		return over
	case under > 0 && float64(pending)-underTok >= minLeft:
		return under
	case over > 0:
		return over
	}
	return 1
}

// reflectBuffered activates a buffered reflection once the observations
// pass ReflectTokens, reflects synchronously past ReflectBlockAfter (or
// without reflection buffering), and starts a background reflection at
// ReflectActivation of the threshold.
func (c *cycle) reflectBuffered(ctx context.Context, s *BufferSettings, rec store.ObservationRecord) error {
	if s.ReflectActivation == 0 {
		return c.reflect(ctx, rec, false)
	}
	if rec.ObservationTokens > s.ReflectTokens && rec.Buffer.Reflection != nil {
		var activated bool
		err := c.update(ctx, func(cur *store.ObservationRecord) bool {
			activated = activateReflection(cur, c.Tokenizer)
			return cur.Buffer.Reflection == nil // activated, or a stale one dropped
		})
		if err != nil || activated {
			return err
		}
		if rec, err = c.Store.GetObservations(ctx, c.key); err != nil {
			return err
		}
	}
	if rec.ObservationTokens >= s.ReflectBlockAfter {
		if err := c.rt.Wait(ctx, "reflect|"+c.key); err != nil {
			return err
		}
		return c.reflect(ctx, rec, false)
	}
	if float64(rec.ObservationTokens) >= s.ReflectActivation*float64(s.ReflectTokens) && rec.Buffer.Reflection == nil && !c.rt.ReflectedOversize(rec) {
		c.rt.scheduleJob("reflect|"+c.key, c.Jobs, func() { c.reflectJob(c.background) })
	}
	return nil
}

// reflectJob condenses the current observations in the background and
// stores the result as the buffered reflection of their generation.
func (c *cycle) reflectJob(ctx context.Context) {
	rec, err := c.Store.GetObservations(ctx, c.key)
	if err != nil || rec.Observations == "" || rec.Buffer.Reflection != nil {
		return
	}
	text, hints, err := c.condense(ctx, rec)
	c.saveHints(ctx, c.th.ID, hints)
	if err != nil || text == "" {
		c.Log.WarnContext(ctx, "agentmem: buffered reflection failed; it is retried later", "key", c.key, "err", err)
		return
	}
	in := rec.Observations
	err = c.update(ctx, func(cur *store.ObservationRecord) bool {
		if cur.Generation != rec.Generation || !strings.HasPrefix(cur.Observations, in) || cur.Buffer.Reflection != nil {
			return false // reflected meanwhile: the result is stale
		}
		cur.Buffer.Reflection = &store.BufferedReflection{Observations: text, Tokens: c.Tokenizer.Count(text), Generation: rec.Generation,
			InputLength: len(in), InputHash: hash(in), CreatedAt: time.Now().UTC()}
		return true
	})
	if err != nil {
		c.Log.WarnContext(ctx, "agentmem: storing a buffered reflection failed", "key", c.key, "err", err)
	}
}

// activateReflection replaces the reflected prefix of rec's observations
// with the buffered reflection and starts the next generation; the lines
// observed after the reflection began are kept after it. A reflection made
// from other observations (the record was reflected or changed) is
// dropped. It reports whether it activated.
func activateReflection(rec *store.ObservationRecord, tk Counter) bool {
	b := rec.Buffer.Reflection
	rec.Buffer.Reflection = nil
	if b == nil || b.Generation != rec.Generation || b.InputLength > len(rec.Observations) || hash(rec.Observations[:b.InputLength]) != b.InputHash {
		return false
	}
	text := b.Observations
	if rest := strings.TrimLeft(rec.Observations[b.InputLength:], "\n"); rest != "" {
		text += "\n" + rest
	}
	rec.Observations, rec.ObservationTokens, rec.Generation = text, tk.Count(text), rec.Generation+1
	return true
}

// Rebase applies a reflection made from base's observations to cur: the
// reflected text replaces base's observations at the start of cur's and the
// lines added since are kept, as a new generation. It fails when cur is not
// base's generation continued (reflected meanwhile), or text is empty; a
// reflection that lost its compare-and-set to an append is then written
// again without another model call.
func Rebase(cur, base store.ObservationRecord, text string, tk Counter) (store.ObservationRecord, bool) {
	if text == "" {
		return cur, false
	}
	next := cur.Clone()
	next.Buffer.Reflection = &store.BufferedReflection{Observations: text, Generation: base.Generation,
		InputLength: len(base.Observations), InputHash: hash(base.Observations)}
	if !activateReflection(&next, tk) {
		return cur, false
	}
	return next, true
}

func hash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}
