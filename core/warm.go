package core

// warmer is a Tokenizer that can load its data ahead of the first count
// (tokenizer.Tokenizer is one).
type warmer interface{ Warm() }

// warmTokenizer starts loading tk's data in the background, so that the
// first save or turn of the process does not pay the whole load on its
// critical path. The default tiktoken o200k_base has a header to check and
// a table to page in (see tokenizer.Tokenizer.Warm); a custom Tokenizer may
// have more. The load happens once per process whatever the number of
// Memory values.
func warmTokenizer(tk Tokenizer) {
	if w, ok := tk.(warmer); ok {
		go w.Warm()
	}
}
