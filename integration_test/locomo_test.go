package integration_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/analysis"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/pgvector"
	"github.com/agentmem/agentmem/core/vector/vectortest"
	"github.com/agentmem/agentmem/core/vector/weaviate"
	"github.com/agentmem/agentmem/internal/testenv"
)

// LoCoMo through the public API: every conversation is saved with
// Memory.SaveMessages as a user would save it (one resource per
// conversation, one thread per session, the first speaker as user and the
// other as assistant with their names in metadata, shared images as file
// parts with their captions) and every question is asked with Memory.Recall
// (resource scope; topK 4 and messageRange 1 are the defaults). The score is
// the evidence recall of vectortest.EvalLoCoMo over the returned messages.

// locomoMemory opens a Memory over a fresh memstore with vs and emb, saves
// convs into it and returns it.
func locomoMemory(t *testing.T, vs vector.Store, emb vector.Embedder, sr core.SemanticRecall, convs []vectortest.LoCoMoConversation) *core.Memory {
	t.Helper()
	mem, err := core.New(core.Options{Store: memstore.New(), Vector: vs, Embedder: emb,
		Config: core.Config{SemanticRecall: &sr}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range convs {
		saveLoCoMo(t, mem, c)
	}
	return mem
}

// locomoThread is the thread id of a session of a conversation.
func locomoThread(c vectortest.LoCoMoConversation, session string) string {
	return c.SampleID + "/" + session
}

func saveLoCoMo(t *testing.T, mem *core.Memory, c vectortest.LoCoMoConversation) {
	t.Helper()
	var batch []core.Message
	flush := func() {
		if _, err := mem.SaveMessages(bg, batch, nil); err != nil {
			t.Fatal(err)
		}
		batch = nil
	}
	for i, tr := range c.Turns {
		thread := locomoThread(c, tr.Session)
		if i == 0 || c.Turns[i-1].Session != tr.Session {
			if len(batch) > 0 {
				flush()
			}
			if _, err := mem.CreateThread(bg, core.ThreadInput{ID: thread, ResourceID: c.SampleID}); err != nil {
				t.Fatal(err)
			}
		}
		role := core.RoleUser
		if tr.Speaker != c.Turns[0].Speaker {
			role = core.RoleAssistant
		}
		msg := core.NewMessage(role, tr.Text)
		msg.ID, msg.ThreadID, msg.ResourceID, msg.CreatedAt = c.SampleID+"/"+tr.ID, thread, c.SampleID, tr.At
		msg.Content.Metadata = map[string]any{"speaker": tr.Speaker}
		if tr.Caption != "" {
			msg.Content.Parts = append(msg.Content.Parts, imagePart(tr))
		}
		batch = append(batch, msg)
	}
	flush()
}

// imagePart is a shared image as a file part with its caption.
func imagePart(tr vectortest.LoCoMoTurn) core.Part {
	p := core.Part{Type: core.PartFile, MimeType: "image/jpeg"}
	if len(tr.Images) > 0 {
		p.Data, p.Filename = tr.Images[0], path.Base(tr.Images[0])
	}
	caption, _ := json.Marshal(tr.Caption)
	p.Extra = map[string]json.RawMessage{"caption": caption}
	return p
}

// evalMemoryLoCoMo asks every question of convs through Memory.Recall with
// the per-call recall override over (nil: the instance config) and returns
// one scorer per conversation.
func evalMemoryLoCoMo(t *testing.T, mem *core.Memory, convs []vectortest.LoCoMoConversation, over *core.SemanticRecall) []vectortest.Scorer {
	t.Helper()
	out := make([]vectortest.Scorer, len(convs))
	for ci, c := range convs {
		thread := locomoThread(c, c.Turns[len(c.Turns)-1].Session)
		for _, q := range c.Questions {
			res, err := mem.Recall(bg, core.RecallQuery{ThreadID: thread, ResourceID: c.SampleID, VectorSearch: q.Question,
				Config: &core.Config{LastMessages: core.NoHistory, SemanticRecall: over}})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, m := range res.Messages {
				got[strings.TrimPrefix(m.ID, c.SampleID+"/")] = true
			}
			out[ci].Add(q, got)
		}
	}
	return out
}

// total merges per-conversation scorers into one result.
func total(scs []vectortest.Scorer) vectortest.RecallResult {
	var all vectortest.Scorer
	for _, s := range scs {
		all.Merge(s)
	}
	return all.Result()
}

// locomoAlphas is the hybrid alpha grid of the cross-validation.
var locomoAlphas = []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}

// crossValidate picks the best alpha on each conversation and scores it on
// the others (leave-one-conversation-out), returning the held-out result and
// the alphas picked per held-out conversation.
func crossValidate(t *testing.T, store string, mem *core.Memory, convs []vectortest.LoCoMoConversation) (vectortest.RecallResult, []float64) {
	t.Helper()
	grid := make([][]vectortest.Scorer, len(locomoAlphas))
	for i, a := range locomoAlphas {
		grid[i] = evalMemoryLoCoMo(t, mem, convs, &core.SemanticRecall{Mode: vector.SearchHybrid, Hybrid: &core.Hybrid{Alpha: core.Float(a)}})
		r := total(grid[i])
		report(t, store, fmt.Sprintf("hybrid α %.1f (in-sample)", a), r)
	}
	var held vectortest.Scorer
	var picked []float64
	for test := range convs {
		best, bestRecall := 0, -1.0
		for i := range locomoAlphas {
			var fit vectortest.Scorer
			for c := range convs {
				if c != test {
					fit.Merge(grid[i][c])
				}
			}
			if r := fit.Result().Recall; r > bestRecall {
				best, bestRecall = i, r
			}
		}
		picked = append(picked, locomoAlphas[best])
		held.Merge(grid[best][test])
	}
	return held.Result(), picked
}

func report(t *testing.T, store, name string, r vectortest.RecallResult) {
	t.Helper()
	r.Mode = name
	vectortest.Report(t, store, r)
}

// TestLoCoMoThroughMemory measures recall on the dev split through the public
// API on the local store with the default config (target ≥ 0.72), checks
// that hybrid under cross-validation beats BM25-only and vector-only, and
// with AGENTMEM_LOCOMO_ABLATION=1 prints the ablation table of BENCHMARKS.md.
func TestLoCoMoThroughMemory(t *testing.T) {
	convs := vectortest.LoadLoCoMo(t)
	open := func() (vector.Store, vector.Embedder) { return local.New(), local.NewHashEmbedder(0) }
	def := locomoModes(t, "local", open, convs)
	if def.Recall < 0.72 {
		t.Errorf("default config recall %.3f, want >= 0.72", def.Recall)
	}
	if os.Getenv("AGENTMEM_LOCOMO_ABLATION") != "1" {
		return
	}
	for _, ab := range ablations() {
		vs, emb := open()
		mem := locomoMemory(t, vs, emb, ab.sr, convs)
		report(t, "local", ab.name, total(evalMemoryLoCoMo(t, mem, convs, nil)))
	}
}

// TestLoCoMoThroughMemoryWeaviate is the same on Weaviate, with vectors
// brought by the client (vectorizer none) and embedded by Weaviate
// (text2vec-transformers over the offline embed server, the same hash
// embedder).
func TestLoCoMoThroughMemoryWeaviate(t *testing.T) {
	convs := vectortest.LoadLoCoMo(t)
	host, grpc := testenv.Weaviate(t)
	for _, vz := range []string{weaviate.VectorizerNone, "text2vec-transformers"} {
		t.Run(vz, func(t *testing.T) {
			open := func() (vector.Store, vector.Embedder) {
				prefix := fmt.Sprintf("Locomo%d", rand.Int64N(1<<40))
				vs, err := weaviate.New(bg, weaviate.Config{Host: host, GRPCHost: grpc, Vectorizer: vz, ClassPrefix: prefix})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { dropClasses(vs, prefix) })
				if vz == weaviate.VectorizerNone {
					return vs, local.NewHashEmbedder(0)
				}
				return vs, nil
			}
			locomoModes(t, "weaviate-"+vz, open, convs)
		})
	}
}

// locomoModes reports the default config, BM25 only, vector only and the
// cross-validated hybrid on a store from open, checks that the hybrid beats
// both single modes, and returns the default's result.
func locomoModes(t *testing.T, store string, open func() (vector.Store, vector.Embedder), convs []vectortest.LoCoMoConversation) vectortest.RecallResult {
	t.Helper()
	vs, emb := open()
	mem := locomoMemory(t, vs, emb, core.SemanticRecall{}, convs)
	def := total(evalMemoryLoCoMo(t, mem, convs, nil))
	report(t, store, "default", def)
	bm25 := total(evalMemoryLoCoMo(t, mem, convs, &core.SemanticRecall{Mode: vector.SearchBM25}))
	report(t, store, "bm25", bm25)
	vec := total(evalMemoryLoCoMo(t, mem, convs, &core.SemanticRecall{Mode: vector.SearchVector}))
	report(t, store, "vector", vec)
	cv, picked := crossValidate(t, store, mem, convs)
	report(t, store, fmt.Sprintf("hybrid cross-validated (α picked %v)", picked), cv)
	if cv.Recall <= bm25.Recall || cv.Recall <= vec.Recall {
		t.Errorf("%s: cross-validated hybrid %.3f does not beat BM25 %.3f and vector %.3f", store, cv.Recall, bm25.Recall, vec.Recall)
	}
	return def
}

type ablation struct {
	name string
	sr   core.SemanticRecall
}

// ablations turns each analyzer and indexing option off (or changes it)
// against the default.
func ablations() []ablation {
	return []ablation{
		{"analyzer none (no stopwords, no stems)", core.SemanticRecall{Language: analysis.None}},
		{"context 0 messages", core.SemanticRecall{IndexText: &core.IndexText{ContextMessages: core.Int(0)}}},
		{"context 2 messages", core.SemanticRecall{IndexText: &core.IndexText{ContextMessages: core.Int(2)}}},
		{"context 3 messages", core.SemanticRecall{IndexText: &core.IndexText{ContextMessages: core.Int(3)}}},
		{"no file captions", core.SemanticRecall{IndexText: &core.IndexText{NoFiles: true}}},
		{"analyzer none, context 0, no captions (before)", core.SemanticRecall{Language: analysis.None,
			IndexText: &core.IndexText{ContextMessages: core.Int(0), NoFiles: true}}},
	}
}

// TestLoCoMoThroughMemoryPgvector is the same on pgvector (messages in the
// memory store, vectors in PostgreSQL), whose default, BM25 and vector
// recall must be within 0.01 of the local store's with the same embedder
// and analyzer.
func TestLoCoMoThroughMemoryPgvector(t *testing.T) {
	convs := vectortest.LoadLoCoMo(t)
	ref := locomoMemory(t, local.New(), local.NewHashEmbedder(0), core.SemanticRecall{}, convs)
	ms := openPG(t, nil)
	vs, err := pgvector.New(bg, ms.Pool(), pgvector.Config{Schema: ms.Schema()})
	if err != nil {
		t.Fatal(err)
	}
	mem := locomoMemory(t, vs, local.NewHashEmbedder(0), core.SemanticRecall{}, convs)
	for _, sr := range []*core.SemanticRecall{nil, {Mode: vector.SearchBM25}, {Mode: vector.SearchVector}} {
		got, want := total(evalMemoryLoCoMo(t, mem, convs, sr)), total(evalMemoryLoCoMo(t, ref, convs, sr))
		name := "default"
		if sr != nil {
			name = sr.Mode
		}
		report(t, "pgvector", name, got)
		if math.Abs(got.Recall-want.Recall) > 0.01 {
			t.Errorf("%s: pgvector recall %.3f, local %.3f", name, got.Recall, want.Recall)
		}
	}
}
