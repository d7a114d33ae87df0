package indexing

import "sync"

// maxFailed bounds the messages a Failed set remembers; beyond it, further
// ones are retried like any unindexed message.
const maxFailed = 10_000

// Failed holds the ids of messages whose indexing failed on their own while
// the other messages of their batch were indexed: a text the embedder or
// the vector store refuses, which a retry would not change. Their markers
// stay in the store (Unindexed counts them, Reindex tries them again), but
// the retries after later writes skip them, so that no write pays for them
// again. It is per process: a restarted process tries each once more. It is
// safe for concurrent use.
type Failed struct {
	mu  sync.Mutex
	ids map[string]bool
}

// Add remembers ids, up to maxFailed in all.
func (f *Failed) Add(ids []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ids == nil {
		f.ids = map[string]bool{}
	}
	for _, id := range ids {
		if len(f.ids) >= maxFailed {
			return
		}
		f.ids[id] = true
	}
}

// Remove forgets ids (indexed since).
func (f *Failed) Remove(ids []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, id := range ids {
		delete(f.ids, id)
	}
}

// Has reports whether id is held.
func (f *Failed) Has(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ids[id]
}
