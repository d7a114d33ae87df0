package core

import "github.com/agentmem/agentmem/core/internal/recall"

// Diversity configures the diversity re-rank of semantic recall: more
// candidates than TopK are fetched and TopK of them picked by maximal
// marginal relevance (MMR), so that hits cover different evidence instead of
// several paraphrases of the best one. Identical and near-identical texts are
// collapsed whether or not it is on.
type Diversity struct {
	// Disabled turns the re-rank off (a per-call override can so undo an
	// instance-wide Diversity).
	Disabled bool
	// Lambda weighs relevance against novelty, within [0, 1]: 1 keeps the
	// search order, lower values prefer hits unlike those already picked;
	// nil means DefaultDiversityLambda.
	Lambda *float64
	// Candidates is how many hits are re-ranked; 0 means 4×TopK.
	Candidates int
}

// DefaultDiversityLambda is the MMR weight of relevance when Diversity sets
// no Lambda: the best of the grid 0.5–0.9 on LoCoMo dev, where it recalled
// more multi-hop evidence and matched the relevance order overall, which is
// why Diversity stays off unless configured (see BENCHMARKS.md).
const DefaultDiversityLambda = 0.8

// Retrieval enables the recall tool (RecallToolName), with which the model
// searches the resource's stored messages itself. Mastra names the same
// switch retrieval. It needs semantic recall on; it is offered also when the
// config is read-only, since it only reads.
type Retrieval struct {
	Disabled bool
	// TopK is the most messages one search returns; 0 means 8.
	TopK int
	// MaxTokens caps the tokens of one result; lower-ranked hits are left
	// out to fit. 0 means 2000.
	MaxTokens int
}

// resolveRecallExtras validates and defaults Diversity and Retrieval of a
// resolved recall config: nil when off.
func resolveRecallExtras(rc *SemanticRecall) error {
	if d := rc.Diversity; d != nil {
		if d.Disabled {
			rc.Diversity = nil
		} else {
			dc := *d
			lambda := DefaultDiversityLambda
			if d.Lambda != nil {
				lambda = *d.Lambda
			}
			if lambda < 0 || lambda > 1 || dc.Candidates < 0 {
				return invalidConfig("semanticRecall.diversity: lambda must be within [0, 1] and candidates non-negative")
			}
			dc.Lambda = &lambda
			if dc.Candidates == 0 {
				dc.Candidates = 4 * rc.TopK
			}
			rc.Diversity = &dc
		}
	}
	if r := rc.Retrieval; r != nil {
		if r.Disabled {
			rc.Retrieval = nil
			return nil
		}
		if r.TopK < 0 || r.MaxTokens < 0 {
			return invalidConfig("semanticRecall.retrieval: topK and maxTokens must be non-negative")
		}
		rr := *r
		orDefault(&rr.TopK, 8)
		orDefault(&rr.MaxTokens, 2000)
		rc.Retrieval = &rr
	}
	return nil
}

// cloneRecallExtras deep-copies Diversity and Retrieval of a copied config.
func cloneRecallExtras(rc *SemanticRecall) {
	if d := rc.Diversity; d != nil {
		rc.Diversity = &Diversity{Disabled: d.Disabled, Lambda: clonePtr(d.Lambda), Candidates: d.Candidates}
	}
	rc.Retrieval = clonePtr(rc.Retrieval)
}

// mergeRecallExtras overlays over's Diversity and Retrieval groups on base:
// a set group replaces the base's.
func mergeRecallExtras(base, over *SemanticRecall) {
	base.Diversity = pick(base.Diversity, over.Diversity)
	base.Retrieval = pick(base.Retrieval, over.Retrieval)
}

// recallSettings returns the recall engine's settings of rc, resolved.
func recallSettings(rc *SemanticRecall) *recall.Settings {
	rs := &recall.Settings{TopK: rc.TopK, Window: recall.Window(*rc.MessageRange), Scope: rc.Scope, MaxChunkChars: rc.MaxChunkChars,
		Threshold: rc.Threshold, IndexConfig: rc.IndexConfig, Mode: rc.Mode, Hybrid: rc.Hybrid != nil, Alpha: DefaultHybridAlpha, Filter: rc.Filter}
	if rc.Hybrid != nil && rc.Hybrid.Alpha != nil {
		rs.Alpha = *rc.Hybrid.Alpha
	}
	if d := rc.Diversity; d != nil {
		rs.Diversity = &recall.Diversity{Lambda: *d.Lambda, Candidates: d.Candidates}
	}
	if r := rc.Retrieval; r != nil {
		rs.Tool = &recall.Tool{TopK: r.TopK, MaxTokens: r.MaxTokens}
	}
	return rs
}

// write returns the settings an indexing call of s runs under.
func (s settings) write() recall.Write {
	return recall.Write{Settings: s.recall, Gen: s.ownerGen, Bulk: s.bulk}
}
