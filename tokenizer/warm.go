package tokenizer

// Warm loads the encoding's BPE ranks now, if no earlier call did, so that
// the first Count does not pay for it. The ranks are precomputed tables
// embedded in the binary, so loading only checks a header (tens of
// microseconds); the operating system pages a table in as counts touch it.
// Before, parsing o200k_base's rank file took ~0.45 s of CPU and ~23 MiB of
// heap once per process. core.New calls Warm in a background goroutine.
func (t *Tokenizer) Warm() {
	_, _ = t.encoder().get()
}
