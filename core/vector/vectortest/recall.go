package vectortest

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/vector"
)

// IndexLoCoMo writes one record per dialog turn: resource = sample id,
// thread = session, message id = dialog id, record id = "<dialog id>#0",
// text = the turn's text (without the speaker's name).
func IndexLoCoMo(h *H, convs []LoCoMoConversation) {
	h.T.Helper()
	for _, c := range convs {
		var recs []vector.Record
		for i, tr := range c.Turns {
			role := message.RoleUser
			if tr.Speaker != c.Turns[0].Speaker {
				role = message.RoleAssistant
			}
			recs = append(recs, vector.Record{ID: tr.ID + "#0", Text: tr.Text, Meta: vector.Meta{
				MessageID: tr.ID, ThreadID: tr.Session, ResourceID: c.SampleID, Role: role, CreatedAt: tr.At}})
			if len(recs) == 100 || i == len(c.Turns)-1 {
				h.Upsert(recs...)
				recs = nil
			}
		}
	}
}

// RecallResult is the evidence recall of one search configuration.
type RecallResult struct {
	Store       string  `json:"store"`       // store name given to Report
	Mode        string  `json:"mode"`        // search mode
	Alpha       float64 `json:"alpha"`       // hybrid alpha
	TopK        int     `json:"topK"`        // hits per question before expansion
	Questions   int     `json:"questions"`   // questions asked
	Evidence    int     `json:"evidence"`    // evidence ids over all questions
	Recall      float64 `json:"recall"`      // mean over questions of the share of evidence retrieved
	MicroRecall float64 `json:"microRecall"` // share of all evidence ids retrieved
}

// EvalLoCoMo queries every question (TopK 4, resource scope), expands each
// hit by messageRange 1 (the neighbouring turns of its session) and measures
// the share of evidence dialog ids retrieved.
func EvalLoCoMo(h *H, convs []LoCoMoConversation, mode string, alpha float64) RecallResult {
	h.T.Helper()
	var sc Scorer
	for _, c := range convs {
		pos := map[string]int{}
		for i, tr := range c.Turns {
			pos[tr.ID] = i
		}
		for _, q := range c.Questions {
			hits := h.Query(vector.Query{Text: q.Question, TopK: 4, Mode: mode, Alpha: alpha,
				Filter: vector.Filter{ResourceID: c.SampleID}})
			got := map[string]bool{}
			for _, hit := range hits {
				i, ok := pos[hit.Meta.MessageID]
				if !ok {
					h.T.Fatalf("hit %s is not a turn of %s", hit.ID, c.SampleID)
				}
				for j := max(i-1, 0); j <= min(i+1, len(c.Turns)-1); j++ {
					if c.Turns[j].Session == c.Turns[i].Session {
						got[c.Turns[j].ID] = true
					}
				}
			}
			sc.Add(q, got)
		}
	}
	r := sc.Result()
	r.Mode, r.Alpha, r.TopK = mode, alpha, 4
	return r
}

// Scorer accumulates evidence recall over questions. The zero value is empty.
type Scorer struct {
	questions, evidence, found int
	sum                        float64
}

// Add scores one question given the dialog ids retrieved for it.
func (s *Scorer) Add(q LoCoMoQuestion, got map[string]bool) {
	n := 0
	for _, e := range q.Evidence {
		if got[e] {
			n++
		}
	}
	s.questions++
	s.evidence += len(q.Evidence)
	s.found += n
	s.sum += float64(n) / float64(len(q.Evidence))
}

// Merge adds the questions scored by o.
func (s *Scorer) Merge(o Scorer) {
	s.questions += o.questions
	s.evidence += o.evidence
	s.found += o.found
	s.sum += o.sum
}

// Result returns the recall so far (Mode, Alpha, TopK and Store unset).
func (s *Scorer) Result() RecallResult {
	r := RecallResult{Questions: s.questions, Evidence: s.evidence}
	if s.questions > 0 {
		r.Recall = s.sum / float64(s.questions)
		r.MicroRecall = float64(s.found) / float64(s.evidence)
	}
	return r
}

// Report logs r and prints it as one machine-readable line
// "LOCOMO_RECALL {json}" on stdout, also appended to $AGENTMEM_LOCOMO_OUT when set.
func Report(t testing.TB, store string, r RecallResult) {
	t.Helper()
	r.Store = store
	b, _ := json.Marshal(r)
	line := "LOCOMO_RECALL " + string(b)
	t.Logf("%s %-6s alpha=%.2f: recall %.3f (micro %.3f) over %d questions", store, r.Mode, r.Alpha, r.Recall, r.MicroRecall, r.Questions)
	fmt.Println(line)
	if p := os.Getenv("AGENTMEM_LOCOMO_OUT"); p != "" {
		if f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintln(f, line)
			f.Close()
		}
	}
}

// HybridAlphas is the alpha grid SweepLoCoMo tries.
var HybridAlphas = []float64{0.1, 0.2, 0.3, 0.5, 0.75}

// SweepLoCoMo evaluates BM25, vector and hybrid (every HybridAlphas) search
// when the store supports them, reports every result, and returns the BM25
// result and the best hybrid result (zero values when unsupported).
func SweepLoCoMo(h *H, convs []LoCoMoConversation, store string) (bm25, bestHybrid RecallResult) {
	h.T.Helper()
	if h.Supports(vector.SearchBM25) {
		bm25 = EvalLoCoMo(h, convs, vector.SearchBM25, 0)
		Report(h.T, store, bm25)
	}
	Report(h.T, store, EvalLoCoMo(h, convs, vector.SearchVector, 0))
	if h.Supports(vector.SearchHybrid) {
		for _, a := range HybridAlphas {
			r := EvalLoCoMo(h, convs, vector.SearchHybrid, a)
			Report(h.T, store, r)
			if r.Recall > bestHybrid.Recall {
				bestHybrid = r
			}
		}
	}
	return bm25, bestHybrid
}
