package tokenizer

// Warm loads the encoding's BPE ranks now, if no earlier call did, and
// reads one byte of every 4 KiB page of their table, so that the first
// counts do not wait for the operating system to page it in. The ranks are
// precomputed tables embedded in the binary, so loading only checks a header
// (tens of microseconds); without the page-in, the first batch of 1,000
// messages saved in a fresh process took 5-7 ms longer. The table (4.1 MiB for o200k_base, 1-2 MiB for the others) then
// stays resident, as most of it would after a few thousand counts anyway.
// Before the tables, parsing o200k_base's rank file took ~0.45 s of CPU and
// ~23 MiB of heap once per process. core.New calls Warm in a background
// goroutine.
func (t *Tokenizer) Warm() {
	e := t.encoder()
	ranks, err := e.get()
	if err != nil {
		return
	}
	e.paged.Do(func() { e.pageSum = ranks.pageIn() })
}

// pageIn reads one byte of every page of the table and returns their sum
// (kept, so that the reads are not optimised away).
func (t *rankTable) pageIn() byte {
	var sum byte
	for _, d := range [...]string{t.offs, t.slots, t.arena} {
		for i := 0; i < len(d); i += 4096 {
			sum += d[i]
		}
	}
	return sum
}
