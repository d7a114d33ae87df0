package local

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/agentmem/agentmem/core"
)

// The scan list, the id map and the slab vectors stay consistent under random
// upserts and deletes.
func TestPartitionListConsistent(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	p := &partition{recs: map[string]*entry{}, post: map[string]*posting{}}
	want := map[string]float32{}
	for step := 0; step < 5000; step++ {
		id := fmt.Sprint(r.IntN(300))
		if r.IntN(3) == 0 {
			p.remove(id)
			delete(want, id)
			continue
		}
		v := []float32{float32(step), 1, 2}
		p.put(newEntry(core.VectorRecord{ID: id, Vector: v, Text: fmt.Sprint("x y", r.IntN(5), " z", r.IntN(3), " x")}))
		want[id] = float32(step)
	}
	if len(p.list) != len(p.recs) || len(p.recs) != len(want) {
		t.Fatalf("list %d, map %d, want %d", len(p.list), len(p.recs), len(want))
	}
	for i, e := range p.list {
		if e.pos != i || p.recs[e.rec.ID] != e || e.rec.Vector[0] != want[e.rec.ID] {
			t.Fatalf("entry %d inconsistent: %+v", i, e)
		}
		for _, tm := range e.terms {
			if pl := p.post[tm.text]; pl == nil || pl.ents[tm.idx] != e || pl.tfs[tm.idx] != tm.tf {
				t.Fatalf("entry %d: posting of %q inconsistent", i, tm.text)
			}
		}
	}
}
