package recall

import (
	"errors"
	"testing"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/vector"
)

// A query asks for vector.Candidates of its topK; a condition applied after
// the search asks for vector.FilteredCandidates, whatever the diversity
// pool; diversity asks for at least its pool.
func TestQueryCandidates(t *testing.T) {
	keep := func(*message.Message) bool { return true }
	for _, c := range []struct {
		name string
		q    query
		want int
	}{
		{"plain", query{topK: 4}, vector.Candidates(4)},
		{"diversity pool", query{topK: 4, diversity: &Diversity{Candidates: 16}}, 16},
		{"diversity below", query{topK: 4, diversity: &Diversity{Candidates: 2}}, vector.Candidates(4)},
		{"filtered", query{topK: 4, keep: keep, diversity: &Diversity{Candidates: 300}}, vector.FilteredCandidates(4)},
	} {
		if got := c.q.candidates(); got != c.want {
			t.Errorf("%s: candidates() = %d, want %d", c.name, got, c.want)
		}
	}
}

// A reindex's refusals keep each id once and the last refusal.
func TestRefused(t *testing.T) {
	var r Refused
	if r.result() != nil {
		t.Fatal("no refusal must be no error")
	}
	first, last := errors.New("first"), errors.New("last")
	r.add([]string{"a", "b"}, first)
	r.add([]string{"b", "c"}, last)
	err := r.result()
	if got := r.MessageIDs; len(got) != 3 || got[0] != "a" || got[2] != "c" || !errors.Is(err, last) {
		t.Fatalf("refused %v, err %v", got, err)
	}
}

// An owner change running or run since a generation was taken is seen;
// none leaves the generation as it was.
func TestOwnerChange(t *testing.T) {
	e := New(Deps{})
	gen := e.Generation()
	if e.owners.changedSince(gen) {
		t.Fatal("no change ran")
	}
	end := e.OwnerChange()
	if !e.owners.changedSince(gen) || !e.owners.changedSince(e.Generation()) {
		t.Fatal("a running change must be seen")
	}
	end()
	if !e.owners.changedSince(gen) || e.owners.changedSince(e.Generation()) {
		t.Fatal("an ended change must be seen by generations taken before it only")
	}
	if !e.owners.changedSince(settleAlways) {
		t.Fatal("messages read from the store always settle")
	}
}
