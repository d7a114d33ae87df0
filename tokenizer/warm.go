package tokenizer

// Warm loads the encoding's BPE ranks now, if no earlier call did, so that
// the first Count does not pay for it. Loading o200k_base parses ~200k ranks
// once per process: about 0.45 s of CPU and ~23 MiB of heap on the project's
// benchmark machine. core.New calls Warm in a background goroutine; a Count
// that arrives while the load is under way waits for it.
func (t *Tokenizer) Warm() {
	_, _ = t.encoder().get()
}
