package inspector

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
)

// recallForm is what the playground's form submitted.
type recallForm struct {
	Resource, Thread, Query, Mode string
	TopK, Before, After           int
	Alpha                         float64
}

// modeOption is one search mode the vector store supports.
type modeOption struct {
	Value, Label string
}

// recallData is the playground's data.
type recallData struct {
	Form       recallForm
	Configured bool
	Modes      []modeOption
	Index      string
	Hits       []hitView
	Searched   bool
	Err        string
}

// hitView is one vector hit with the messages around it.
type hitView struct {
	Rank     int
	ChunkID  string
	Score    string
	ThreadID string
	Target   string // the hit's message id
	Range    []messageView
}

// modeLabels names the modes as people call them.
var modeLabels = map[string]string{vector.SearchVector: "vector", vector.SearchBM25: "keyword", vector.SearchHybrid: "hybrid"}

// recallView is the recall playground: a query against the vector store,
// hits with scores and the message range around each.
func (s *server) recallView(w http.ResponseWriter, r *http.Request) {
	d := recallData{Configured: s.opts.Vector != nil, Modes: s.modes()}
	f, err := s.parseRecallForm(r, d.Modes)
	d.Form = f
	if err == nil && d.Configured && f.Query != "" {
		d.Searched = true
		d.Index, d.Hits, err = s.search(r.Context(), f)
	}
	status := http.StatusOK
	if err != nil {
		status = statusOf(err)
		d.Err = err.Error()
		if status >= 500 && status != http.StatusBadGateway {
			s.log.ErrorContext(r.Context(), "agentmem inspector: recall failed", "err", err)
			d.Err = "internal error (see the server log)"
		}
	}
	s.render(w, r, status, "recall", "Recall playground", d)
}

// modes lists the search modes of the vector store: all it declares, else
// plain vector search.
func (s *server) modes() []modeOption {
	list := []string{vector.SearchVector}
	if ml, ok := s.opts.Vector.(interface{ SearchModes() []string }); ok {
		list = ml.SearchModes()
	}
	var out []modeOption
	for _, m := range list {
		label := modeLabels[m]
		if label == "" {
			label = m
		}
		out = append(out, modeOption{Value: m, Label: label})
	}
	return out
}

// parseRecallForm reads and checks the form; defaults come from the
// memory's semantic-recall configuration.
func (s *server) parseRecallForm(r *http.Request, modes []modeOption) (recallForm, error) {
	q := r.URL.Query()
	f := recallForm{Resource: strings.TrimSpace(q.Get("resource")), Thread: strings.TrimSpace(q.Get("thread")),
		Query: strings.TrimSpace(q.Get("q")), Mode: q.Get("mode"), TopK: 4, Before: 1, After: 1, Alpha: core.DefaultHybridAlpha}
	if rc := s.mem.Config().SemanticRecall; rc != nil {
		if rc.TopK > 0 {
			f.TopK = rc.TopK
		}
		if rc.MessageRange != nil {
			f.Before, f.After = rc.MessageRange.Before, rc.MessageRange.After
		}
		f.Mode = defaultString(f.Mode, rc.Mode)
		if rc.Hybrid != nil && rc.Hybrid.Alpha != nil {
			f.Alpha = *rc.Hybrid.Alpha
		}
	}
	// As in a turn: hybrid where the store supports it, else vector.
	if f.Mode == "" && slices.ContainsFunc(modes, func(m modeOption) bool { return m.Value == vector.SearchHybrid }) {
		f.Mode = vector.SearchHybrid
	}
	f.Mode = defaultString(f.Mode, vector.SearchVector)
	if !slices.ContainsFunc(modes, func(m modeOption) bool { return m.Value == f.Mode }) {
		return f, badRequest{msg: "mode " + strconv.Quote(f.Mode) + " is not supported by this vector store"}
	}
	var err error
	if f.TopK, err = intParam("topk", q.Get("topk"), f.TopK, 1, 100); err != nil {
		return f, err
	}
	if f.Before, err = intParam("before", q.Get("before"), f.Before, 0, 50); err != nil {
		return f, err
	}
	if f.After, err = intParam("after", q.Get("after"), f.After, 0, 50); err != nil {
		return f, err
	}
	if a := strings.TrimSpace(q.Get("alpha")); a != "" {
		if f.Alpha, err = strconv.ParseFloat(a, 64); err != nil || f.Alpha < 0 || f.Alpha > 1 {
			return f, badRequest{msg: "alpha must be a number from 0 to 1"}
		}
	}
	if f.Query != "" {
		if err := store.ValidateID("resource", f.Resource); err != nil {
			return f, err
		}
	}
	return f, nil
}

// search runs the query the way core's recall does (same index name,
// analyzer, embedder and resource filter) and loads each hit's message range.
func (s *server) search(ctx context.Context, f recallForm) (string, []hitView, error) {
	q := vector.Query{Text: f.Query, Keywords: s.mem.Analyzer().Analyze(f.Query), TopK: f.TopK, Mode: f.Mode,
		Filter: vector.Filter{ResourceID: f.Resource, ThreadID: f.Thread}}
	if f.Mode == vector.SearchHybrid {
		q.Alpha = f.Alpha
	}
	index := vector.IndexName(s.opts.EmbeddingDimension)
	if !s.opts.Vector.SelfEmbedding() {
		vecs, err := s.opts.Embedder.Embed(ctx, []string{f.Query})
		if err != nil {
			return "", nil, &memerr.Error{Code: memerr.CodeVector, Op: "embed", Msg: "embedder failed", Err: err}
		}
		if len(vecs) != 1 || len(vecs[0]) == 0 {
			return "", nil, memerr.Errorf(memerr.CodeVector, "embed", "embedder returned no vector")
		}
		q.Vector, index = vecs[0], vector.IndexName(len(vecs[0]))
	}
	hits, err := s.opts.Vector.Query(ctx, index, q)
	if err != nil {
		return index, nil, err
	}
	var out []hitView
	for i, h := range hits {
		v := hitView{Rank: i + 1, ChunkID: h.ID, Score: strconv.FormatFloat(h.Score, 'f', 4, 64),
			ThreadID: h.Meta.ThreadID, Target: h.Meta.MessageID}
		if v.Range, err = s.hitRange(ctx, h, f); err != nil {
			return index, nil, err
		}
		out = append(out, v)
	}
	return index, out, nil
}

// hitRange loads the hit's message and its neighbours in its own thread.
func (s *server) hitRange(ctx context.Context, h vector.Hit, f recallForm) ([]messageView, error) {
	p, err := s.store.ListMessages(ctx, store.MessageQuery{ThreadID: h.Meta.ThreadID, ResourceID: f.Resource,
		Include: []store.Include{{ID: h.Meta.MessageID, Before: f.Before, After: f.After}}})
	if err != nil {
		return nil, err
	}
	var out []messageView
	for _, m := range p.Included {
		v := viewMessage(m)
		v.Recalled = m.ID == h.Meta.MessageID
		out = append(out, v)
	}
	return out, nil
}

func defaultString(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
