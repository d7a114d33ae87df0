package indexing

import "sync"

// maxPending bounds the markers kept in process while the store refuses
// them; beyond it, Reindex is the repair.
const maxPending = 10_000

// Pending holds the ids (and resources) of unindexed messages whose
// marker the store failed to record. It is safe for concurrent use.
type Pending struct {
	mu  sync.Mutex
	ids map[string]string // message id -> resource id
}

// Add holds ids (message id -> resource id), up to maxPending in all.
func (p *Pending) Add(ids map[string]string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ids == nil {
		p.ids = map[string]string{}
	}
	for id, res := range ids {
		if len(p.ids) >= maxPending {
			return
		}
		p.ids[id] = res
	}
}

// Take empties the set and returns what it held.
func (p *Pending) Take() map[string]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.ids
	p.ids = nil
	return out
}

// Count returns how many held ids belong to resourceID ("" = any) and are
// not in skip.
func (p *Pending) Count(resourceID string, skip map[string]bool) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for id, res := range p.ids {
		if (resourceID == "" || res == resourceID) && !skip[id] {
			n++
		}
	}
	return n
}
