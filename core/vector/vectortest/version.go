package vectortest

import (
	"errors"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/vector"
)

// testIndexVersion: a resource written under one IndexSpec.Version refuses
// writes and queries once the index is ensured with another version, other
// resources start on the new version, and deleting the resource clears it.
func testIndexVersion(h *H) {
	ensure := func(version string) {
		h.T.Helper()
		spec := vector.IndexSpec{Name: h.Index, Version: version}
		if !h.S.SelfEmbedding() {
			spec.Dimension = len(h.embed("dimension probe")[0])
		}
		if err := h.S.EnsureIndex(h.Ctx, spec); err != nil {
			h.T.Fatalf("EnsureIndex %q: %v", version, err)
		}
	}
	mismatch := func(what string, err error) {
		h.T.Helper()
		if !errors.Is(err, memerr.ErrIndexVersionMismatch) {
			h.T.Fatalf("%s after a version change: %v, want ErrIndexVersionMismatch", what, err)
		}
	}
	q := vector.Query{Text: "peanut allergy", TopK: 3, Filter: vector.Filter{ResourceID: "r"}}
	ensure("v1")
	h.Upsert(Rec("m1", "t", "r", "I am allergic to peanuts"))
	want(h, "hits under v1", IDs(h.Query(q)), []string{"m1#0"})

	ensure("v2")
	_, err := h.QueryErr(q)
	mismatch("Query", err)
	mismatch("Upsert", h.S.Upsert(h.Ctx, h.Index, h.Prepare([]vector.Record{Rec("m2", "t", "r", "peanut butter")})))
	h.Upsert(Rec("o1", "t", "other", "peanuts again"))
	q2 := q
	q2.Filter.ResourceID = "other"
	want(h, "new resource under v2", IDs(h.Query(q2)), []string{"o1#0"})

	h.Delete(vector.Filter{ResourceID: "r"})
	h.Upsert(Rec("m2", "t", "r", "peanut butter"))
	want(h, "hits after the rebuild", IDs(h.Query(q)), []string{"m2#0"})
}
