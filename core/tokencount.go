package core

import (
	"runtime"
	"sync"
)

// parallelCountMin is the smallest batch counted on several goroutines; below
// it the goroutines cost more than they save.
const parallelCountMin = 64

// countAll counts the tokens of msgs (see countTokens), spreading a large
// batch over the available cores. The Tokenizer contract makes Count safe for
// concurrent use.
func (m *Memory) countAll(msgs []Message) {
	workers := min(runtime.GOMAXPROCS(0), len(msgs)/(parallelCountMin/2))
	if len(msgs) < parallelCountMin || workers < 2 {
		for i := range msgs {
			m.countTokens(&msgs[i])
		}
		return
	}
	var wg sync.WaitGroup
	chunk := (len(msgs) + workers - 1) / workers
	for lo := 0; lo < len(msgs); lo += chunk {
		part := msgs[lo:min(lo+chunk, len(msgs))]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range part {
				m.countTokens(&part[i])
			}
		}()
	}
	wg.Wait()
}
