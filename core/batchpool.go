package core

import "sync"

// batchPool recycles SaveMessages' working copy of a batch: for a batch of
// 100 messages it is 26 KiB, a sixth of what a PostgreSQL save allocated,
// and the garbage collector's share of a save's CPU follows the bytes
// allocated. Only a store that promises to keep none of msgs
// (store.BatchReleaser) has its batches recycled: the saved messages come
// back in a slice of its own, so the copy is free once SaveMessages
// returns.
var batchPool sync.Pool // of *[]Message, empty

// maxPooledBatch bounds the batches kept: a rare import of a million
// messages is not held for the process's life.
const maxPooledBatch = 4096

// newBatch returns an empty batch with room for n messages, in the box that
// recycle returns to the pool (putting a fresh box each time cost an
// allocation a save).
func newBatch(n int) *[]Message {
	if p, _ := batchPool.Get().(*[]Message); p != nil && cap(*p) >= n {
		return p
	}
	batch := make([]Message, 0, n)
	return &batch
}

// recycle returns batch, taken from box, to the pool once the store is
// done with it: when the store releases its batches, and saved does not
// share batch's array (a store that returns msgs itself breaks its promise,
// but its caller still gets intact messages). A pooled batch is all zero
// values, so only what was used is cleared.
func (c *CheckedStore) recycle(box *[]Message, batch, saved []Message) {
	if !c.releases || cap(batch) > maxPooledBatch || len(saved) > 0 && holds(batch, &saved[0]) {
		return
	}
	clear(batch) // drop the messages' contents for the collector
	*box = batch[:0]
	batchPool.Put(box)
}

// holds reports whether m is an element of batch.
func holds(batch []Message, m *Message) bool {
	for i := range batch {
		if &batch[i] == m {
			return true
		}
	}
	return false
}
