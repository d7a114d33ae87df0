package modeltest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
)

// systemKeys are the thread metadata keys the memory writes itself and
// the model leaves out; the move record is modelled (mThread.moveFrom).
var systemKeys = []string{"clone", "observationalMemory"}

// moveRecordKey is the thread metadata key of MoveThread's record.
const moveRecordKey = "agentmem.move"

// check runs every invariant against the Memory; it returns the first
// violation.
func (r *runner) check() error {
	for _, f := range []func() error{r.checkThreads, r.checkMessages, r.checkWorkingMemory, r.checkVectors, r.checkPrompts} {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

// checkThreads: each resource lists exactly its threads, with the
// application's metadata.
func (r *runner) checkThreads() error {
	for i := range nResources {
		res := resourceID(i)
		page, err := r.mem.ListThreads(r.ctx, store.ThreadQuery{ResourceID: res, PerPage: store.PerPageAll})
		if err != nil {
			return fmt.Errorf("ListThreads(%s): %v", res, err)
		}
		var got []string
		for _, th := range page.Threads {
			got = append(got, th.ID)
			if th.ResourceID != res {
				return fmt.Errorf("ListThreads(%s) returned %s of %s", res, th.ID, th.ResourceID)
			}
			if err := r.threadMetaIs(th); err != nil {
				return err
			}
		}
		slices.Sort(got)
		if want := r.mod.resourceThreads(res); !slices.Equal(got, want) {
			return fmt.Errorf("ListThreads(%s) = %v, want %v", res, got, want)
		}
	}
	return nil
}

// threadMetaIs checks a listed thread's metadata: the application's as
// the model has it, and the move record exactly while a move is unfinished.
func (r *runner) threadMetaIs(th core.Thread) error {
	want := r.mod.threads[th.ID]
	if want == nil {
		return nil // reported by the listing
	}
	md := map[string]any{}
	for k, v := range th.Metadata {
		if !slices.Contains(systemKeys, k) && k != moveRecordKey {
			md[k] = v
		}
	}
	if !sameMeta(md, want.meta) {
		return fmt.Errorf("thread %s metadata %v, want %v", th.ID, md, want.meta)
	}
	rec, has := th.Metadata[moveRecordKey]
	wantRec := map[string]any{"fromResourceIds": want.moveFrom}
	switch {
	case len(want.moveFrom) == 0 && has:
		return fmt.Errorf("thread %s keeps the move record %v of a finished move", th.ID, rec)
	case len(want.moveFrom) > 0 && !sameMeta(map[string]any{"r": rec}, map[string]any{"r": wantRec}):
		return fmt.Errorf("thread %s move record %v, want %v (an unfinished move)", th.ID, rec, wantRec)
	}
	return nil
}

// checkMessages: every saved message is in its thread, as saved, and
// nothing else is.
func (r *runner) checkMessages() error {
	for id, th := range r.mod.threads {
		got, err := r.mem.Recall(r.ctx, allOf(id, th.resource))
		if err != nil {
			return fmt.Errorf("Recall(%s): %v", id, err)
		}
		want := r.mod.threadMsgs(id)
		if ids, wantIDs := idsOf(got.Messages), idsOfModel(want); !slices.Equal(ids, wantIDs) {
			return fmt.Errorf("thread %s holds %v, want %v", id, ids, wantIDs)
		}
		for k, m := range got.Messages {
			w := want[k]
			switch {
			case m.ResourceID != w.resource || m.ThreadID != id:
				return fmt.Errorf("message %s is of %s/%s, want %s/%s", m.ID, m.ResourceID, m.ThreadID, w.resource, id)
			case sigOf(m) != w.sig && len(w.sig) < 200:
				return fmt.Errorf("message %s is %q, want %q", m.ID, sigOf(m), w.sig)
			case sigOf(m) != w.sig:
				return fmt.Errorf("message %s (%d bytes) changed", m.ID, len(w.sig))
			case !sameMeta(m.Content.Metadata, w.meta):
				return fmt.Errorf("message %s metadata %v, want %v", m.ID, m.Content.Metadata, w.meta)
			}
		}
	}
	return nil
}

func idsOfModel(msgs []*mMessage) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.id
	}
	return out
}

func (r *runner) checkWorkingMemory() error {
	for key, want := range r.mod.wm {
		scope, id, _ := strings.Cut(key, ":")
		thread, res := "", id
		if scope == "thread" {
			th, ok := r.mod.threads[id]
			if !ok {
				continue
			}
			thread, res = id, th.resource
		} else if threads := r.mod.resourceThreads(id); len(threads) > 0 {
			thread = threads[0]
		} else {
			continue // read through a thread only
		}
		got, err := r.mem.GetWorkingMemory(r.ctx, thread, res, nil)
		if err != nil || got != want {
			return fmt.Errorf("working memory %s = %q, %v; want %q", key, got, err, want)
		}
	}
	return nil
}

// checkVectors: every vector under a resource is of a message that
// resource owns, in the thread it is stored in, once background work is
// done: an index retry of a write may be between its upsert and the settle
// that deletes what it wrote for a message deleted or moved meanwhile
// (Recall leaves such hits out). A stray vector is checked again after
// Close, which awaits that work, in a reopened Memory.
func (r *runner) checkVectors() error {
	if err := r.strayVectors(); err == nil {
		return nil
	}
	if err := r.reopen(); err != nil {
		return err
	}
	return r.strayVectors()
}

// strayVectors returns a vector under a resource that does not own its
// message in the vector's thread.
func (r *runner) strayVectors() error {
	for i := range nResources {
		res := resourceID(i)
		hits, err := r.vectors(res)
		if err != nil {
			return err
		}
		for _, h := range hits {
			m, ok := r.mod.msgs[h.Meta.MessageID]
			if !ok || m.resource != res || m.thread != h.Meta.ThreadID {
				return fmt.Errorf("vector %s (thread %s) stays under %s: the message is %+v", h.ID, h.Meta.ThreadID, res, m)
			}
		}
	}
	return nil
}

// vectors returns every vector record of a resource, found by a search
// (Weaviate's approximate one may miss some; see allIndexed).
func (r *runner) vectors(res string) ([]vector.Hit, error) {
	return r.vectorsOf(vector.Filter{ResourceID: res})
}

func (r *runner) vectorsOf(f vector.Filter) ([]vector.Hit, error) {
	q := vector.Query{Text: "parcel", TopK: 10000, Filter: f}
	if !r.st.vector.SelfEmbedding() {
		q.Vector = r.emb.EmbedOne("parcel")
	}
	hits, err := r.st.vector.Query(r.ctx, vector.IndexName(r.st.dim), q)
	if err != nil && !strings.Contains(err.Error(), "not found") && !strings.Contains(err.Error(), "does not exist") {
		return nil, fmt.Errorf("vector query of %+v: %v", f, err)
	}
	return hits, nil
}

// allIndexed: every message of res with text has a vector.
func (r *runner) allIndexed(res string) error {
	hits, err := r.vectors(res)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, h := range hits {
		have[h.Meta.MessageID] = true
	}
	missing := map[string][]string{} // thread -> its messages not found
	for _, m := range r.mod.msgs {
		if m.resource == res && strings.HasPrefix(m.sig, "text:") && !have[m.id] {
			missing[m.thread] = append(missing[m.thread], m.id)
		}
	}
	// Weaviate's graph search over a resource with many nearly equal
	// vectors (the ~100 chunks of a big message repeating one phrase) need
	// not reach every record; filtered by thread, it searches the records
	// the filter allows exhaustively.
	for thread, ids := range missing {
		hits, err := r.vectorsOf(vector.Filter{ResourceID: res, ThreadID: thread})
		if err != nil {
			return err
		}
		for _, h := range hits {
			have[h.Meta.MessageID] = true
		}
		for _, id := range ids {
			if !have[id] {
				return fmt.Errorf("message %s of %s has no vector after Reindex", id, res)
			}
		}
	}
	return nil
}

// checkPrompts: with observational memory, every text message of a thread
// reaches its prompt, as itself or named by an observation.
func (r *runner) checkPrompts() error {
	if !r.set.om {
		return nil
	}
	for id, th := range r.mod.threads {
		turn, err := r.mem.Begin(r.ctx, core.TurnRequest{ThreadID: id, ResourceID: th.resource,
			Config: &core.Config{ReadOnly: core.Bool(true)}})
		if err != nil {
			return fmt.Errorf("read-only Begin(%s): %v", id, err)
		}
		var shown []string
		var observed strings.Builder
		for _, m := range turn.Messages() {
			shown = append(shown, m.ID)
			if m.Role == core.RoleSystem {
				observed.WriteString(sigOf(m))
			}
		}
		seen := map[string]bool{}
		for _, tag := range tagRE.FindAllString(observed.String(), -1) {
			seen[tag] = true
		}
		for _, m := range r.mod.threadMsgs(id) {
			tag := tagRE.FindString(m.sig) // a clone's copy keeps its source's tag
			if strings.HasPrefix(m.sig, "text:") && !slices.Contains(shown, m.id) && !seen[tag] {
				return fmt.Errorf("message %s of %s reaches the prompt neither as history nor as an observation", m.id, id)
			}
		}
	}
	return nil
}
