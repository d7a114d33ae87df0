package indexing

import "slices"

// Embedded is what a save that embeds its messages before writing them
// (with their vectors, in one transaction) leaves to the indexing after
// it. A nil *Embedded leaves everything to do.
type Embedded struct {
	Done  bool  // the vectors were written with the messages
	Err   error // embedding (or preparing the index) failed: mark, do not retry inline
	texts []string
	vecs  [][]float32
	dim   int
}

// Keep remembers the vectors of texts, of dimension dim; e may be nil.
func (e *Embedded) Keep(texts []string, vecs [][]float32, dim int) {
	if e != nil {
		e.texts, e.vecs, e.dim = texts, vecs, dim
	}
}

// Vectors returns the kept vectors when texts are the texts they were
// made of, so that a write that failed is retried without embedding again.
func (e *Embedded) Vectors(texts []string) ([][]float32, int, bool) {
	if e == nil || e.vecs == nil || !slices.Equal(texts, e.texts) {
		return nil, 0, false
	}
	return e.vecs, e.dim, true
}

// Left reports whether the records are still to be written, and else the
// failure to record (nil when they were written).
func (e *Embedded) Left() (bool, error) {
	if e == nil || !e.Done && e.Err == nil {
		return true, nil
	}
	return false, e.Err
}
