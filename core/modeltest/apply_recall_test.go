package modeltest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// allOf is the query of a thread's whole history, without semantic recall.
func allOf(thread, res string) core.RecallQuery {
	return core.RecallQuery{ThreadID: thread, ResourceID: res, PerPage: store.PerPageAll,
		Config: &core.Config{SemanticRecall: &core.SemanticRecall{Disabled: true}}}
}

func (r *runner) filterOf(o op) (map[string]any, message.Filter) {
	raw := filterVariants[o.N%len(filterVariants)]
	f, err := message.ParseFilter(raw)
	if err != nil {
		panic(fmt.Sprintf("filter variant %v: %v", raw, err))
	}
	return raw, f
}

// recall reads a thread's history through a metadata filter: exactly the
// model's messages of the thread that match it.
func (r *runner) recall(o op) error {
	thread, res, exists, wrong := r.target(o)
	raw, f := r.filterOf(o)
	q := allOf(thread, res)
	q.Metadata = f
	got, err := r.mem.Recall(r.ctx, q)
	if v, done := r.readRefusal("Recall", err, exists, wrong); done {
		return v
	}
	var want []string
	for _, m := range r.mod.threadMsgs(thread) {
		if matches(raw, m.meta) {
			want = append(want, m.id)
		}
	}
	if ids := idsOf(got.Messages); !slices.Equal(ids, want) {
		return fmt.Errorf("Recall of %s with %v = %v, want %v", thread, raw, ids, want)
	}
	return nil
}

// readRefusal checks the error of a read of o's thread; done says whether
// the read is over (refused as it must be, or failed).
func (r *runner) readRefusal(what string, err error, exists, wrong bool) (error, bool) {
	switch {
	case !exists:
		return expectCode(what+" of a missing thread", err, memerr.CodeThreadNotFound), true
	case wrong:
		return expectCode(what+" under another resource", err, memerr.CodeResourceMismatch), true
	case err != nil:
		return fmt.Errorf("%s: %v", what, err), true
	}
	return nil, false
}

// recallVector is semantic recall with the same filter on both sides and no
// context windows: every message returned is the resource's and matches.
func (r *runner) recallVector(o op) error {
	thread, res, exists, wrong := r.target(o)
	raw, f := r.filterOf(o)
	q := core.RecallQuery{ThreadID: thread, ResourceID: res, PerPage: store.PerPageAll, Metadata: f,
		VectorSearch: phrase(o.N + 2), Config: &core.Config{SemanticRecall: &core.SemanticRecall{Filter: f}}}
	got, err := r.mem.Recall(r.ctx, q)
	if r.emb.down.Load() && err != nil && exists && !wrong {
		return expectCode("Recall with the embedder down", err, memerr.CodeVector, memerr.CodeEmbeddingDimensionFailed)
	}
	if v, done := r.readRefusal("Recall", err, exists, wrong); done {
		return v
	}
	for _, m := range got.Messages {
		if v := r.owned(m.ID, res, raw); v != nil {
			return fmt.Errorf("Recall of %s for %q: %v", thread, q.VectorSearch, v)
		}
	}
	return nil
}

// owned checks that message id is the model's, of res, and matches raw.
func (r *runner) owned(id, res string, raw map[string]any) error {
	m, ok := r.mod.msgs[id]
	switch {
	case !ok:
		return fmt.Errorf("returned %s, which is no stored message", id)
	case m.resource != res:
		return fmt.Errorf("returned %s of %s to %s", id, m.resource, res)
	case raw != nil && !matches(raw, m.meta):
		return fmt.Errorf("returned %s (metadata %v), which filter %v excludes", id, m.meta, raw)
	}
	return nil
}

var recalledRE = regexp.MustCompile(`\[id ([^\]]+)\] \[thread ([^\]]+)\]`)

// recallTool calls the model's recall tool of o's thread under a
// configured filter: neither a match nor the context around it is a
// message the filter excludes.
func (r *runner) recallTool(o op) error {
	thread, res, exists, wrong := r.target(o)
	raw, f := r.filterOf(o)
	cfg := &core.Config{SemanticRecall: &core.SemanticRecall{Filter: f}}
	tools, err := r.mem.Tools(r.ctx, thread, res, cfg)
	if !exists && err == nil {
		return nil // the tools of a thread its first turn will create
	}
	if v, done := r.readRefusal("Tools", err, exists, wrong); done {
		return v
	}
	i := slices.IndexFunc(tools, func(t core.Tool) bool { return t.Name == core.RecallToolName })
	if i < 0 {
		return fmt.Errorf("no recall tool among %d tools", len(tools))
	}
	args := map[string]string{"query": phrase(o.N + 1)}
	if o.Flag {
		args["threadId"] = threadID(o.Other)
	}
	b, _ := json.Marshal(args)
	out, err := tools[i].Call(r.ctx, b)
	if err != nil {
		if r.emb.down.Load() {
			return nil
		}
		return fmt.Errorf("recall tool: %v", err)
	}
	var res0 struct {
		Messages string `json:"messages"`
		Error    string `json:"error"`
	}
	if err := json.Unmarshal(out, &res0); err != nil || res0.Error != "" {
		return fmt.Errorf("recall tool result %s: %v", out, err)
	}
	for _, hit := range recalledRE.FindAllStringSubmatch(res0.Messages, -1) {
		if v := r.owned(hit[1], res, raw); v != nil {
			return fmt.Errorf("recall tool of %s %s: %v", thread, b, v)
		}
		if m := r.mod.msgs[hit[1]]; m.thread != hit[2] || (o.Flag && hit[2] != args["threadId"]) {
			return fmt.Errorf("recall tool %s: %s shown in thread %s, stored in %s", b, hit[1], hit[2], m.thread)
		}
	}
	return nil
}

// reindex runs Reindex of o's thread; with the embedder up, nothing of its
// owner waits for indexing afterwards, and every message has a vector.
func (r *runner) reindex(o op) error {
	o.Flag = false // Reindex takes no resource: the owner's is checked
	thread, res, exists, _ := r.target(o)
	err := r.mem.Reindex(r.ctx, thread)
	switch {
	case !exists && err != nil:
		return expectCode("Reindex of a missing thread", err, memerr.CodeThreadNotFound)
	case !exists:
		return nil
	case r.emb.down.Load():
		return nil
	case err != nil:
		return fmt.Errorf("Reindex: %v", err)
	}
	n, err := r.mem.Unindexed(r.ctx, res)
	if err != nil || n != 0 {
		return fmt.Errorf("after Reindex of %s, Unindexed(%s) = %d, %v", thread, res, n, err)
	}
	return r.allIndexed(res)
}

func idsOf(msgs []core.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.ID
	}
	return out
}
