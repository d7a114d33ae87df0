package local

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/agentmem/agentmem/core/vector"
)

// messageID is the message id of record id in TestPartitionConsistent: a
// prefix of it (as core.Memory's ids) or not.
func messageID(id string) string {
	if len(id)%2 == 0 {
		return "x" + id
	}
	return id[:1]
}

// The id map, the slots, the thread counts and the postings stay consistent
// under random upserts and deletes (with compactions and graph builds in
// between), and every live record keeps its vector.
func TestPartitionConsistent(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	p := newPartition("r", 50)
	want := map[string]float32{}
	for step := 0; step < 5000; step++ {
		id := fmt.Sprint(r.IntN(300))
		if r.IntN(3) == 0 {
			p.remove(id)
			delete(want, id)
			continue
		}
		v := []float32{float32(step%97 + 1), 1, 2}
		p.put(vector.Record{ID: id, Vector: v, Text: fmt.Sprint("x y", r.IntN(5), " z", r.IntN(3), " x"),
			Meta: vector.Meta{ThreadID: fmt.Sprint("t", r.IntN(3)), MessageID: messageID(id)}})
		want[id] = v[0] / float32(math.Sqrt(float64(v[0]*v[0]+5)))
		if p.graphStale() {
			p.indexGraph(0)
		}
	}
	if p.live() != len(want) || len(p.slots)-p.dead != len(want) {
		t.Fatalf("live %d, slots %d - dead %d, want %d", p.live(), len(p.slots), p.dead, len(want))
	}
	perThread := make([]int32, len(p.tcount))
	for id, s := range p.ids {
		if p.slots[s].id != id || p.thr[s] < 0 || p.messageID(s) != messageID(id) {
			t.Fatalf("slot %d of %q holds %+v", s, id, p.slots[s])
		}
		perThread[p.thr[s]]++
		if got := float32(p.vecs.code(s)[0]) * p.vecs.scale[s]; math.Abs(float64(got-want[id])) > 0.01 {
			t.Fatalf("record %q: vector[0] %v, want %v", id, got, want[id])
		}
		p.termsOf(s, func(no int32) {
			if _, found := slices.BinarySearch(p.post[no].slots, s); !found || p.tf(no, s) == 0 {
				t.Fatalf("record %q: posting of %q inconsistent", id, p.words[no])
			}
		})
	}
	if len(p.msgIDs) > len(want) {
		t.Fatalf("%d message ids kept aside for %d records", len(p.msgIDs), len(want))
	}
	if fmt.Sprint(perThread) != fmt.Sprint(p.tcount) {
		t.Fatalf("thread counts %v, want %v", p.tcount, perThread)
	}
	for no, pl := range p.post {
		live := int32(0)
		for i, s := range pl.slots {
			if i > 0 && pl.slots[i-1] >= s {
				t.Fatalf("posting of %q not ascending: %v", p.words[no], pl.slots)
			}
			if p.thr[s] >= 0 {
				live++
			}
		}
		if live != p.df[no] {
			t.Fatalf("term %q: df %d, %d live slots in its posting", p.words[no], p.df[no], live)
		}
	}
}
