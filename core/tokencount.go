package core

import (
	"runtime"
	"sync"
)

// parallelCountBytes is the least text a batch holds to be counted on several
// goroutines, each taking at least half of it. Below it, handing work to a
// second goroutine (and the idle processor spinning after it) costs more
// than the count it takes over: a batch of 100 chat messages (~5 KB) counted
// on two goroutines made a PostgreSQL save ~7% slower in wall time than
// counted on one, as the spinning took the core the server needed
// (BENCHMARKS.md, "Fourth session"). A batch of 1,000 such messages takes
// ~1.5 ms to count on one core.
const parallelCountBytes = 64 << 10

// countAll counts the tokens of msgs (see countTokens), spreading a large
// batch over the available cores. The Tokenizer contract makes Count safe for
// concurrent use.
func (m *Memory) countAll(msgs []Message) {
	procs := runtime.GOMAXPROCS(0)
	workers := min(procs, len(msgs), countedBytes(msgs, parallelCountBytes*procs)/(parallelCountBytes/2))
	if workers < 2 {
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

// countedBytes is about how many bytes CountMessageTokens reads in msgs,
// summed until it reaches limit. It lists the same fields; one it misses
// only changes which batches are split, never a count.
func countedBytes(msgs []Message, limit int) int {
	n := 0
	for i := range msgs {
		for j := range msgs[i].Content.Parts {
			p := &msgs[i].Content.Parts[j]
			n += len(p.Text) + len(p.Reasoning)
			if ti := p.ToolInvocation; ti != nil {
				n += len(ti.ToolName) + len(ti.Args) + len(ti.Result) + len(ti.ErrorText)
			}
		}
		if n >= limit {
			break
		}
	}
	return n
}
