package modeltest

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/agentmem/agentmem/core"
)

// The universe operations draw their arguments from: few ids, so that
// operations collide (a thread created twice, moved back, cloned onto an
// existing id, saved to under the wrong resource).
const (
	nThreads   = 5
	nResources = 3
)

func threadID(i int) string   { return fmt.Sprintf("t%d", i%nThreads) }
func resourceID(i int) string { return fmt.Sprintf("r%d", i%nResources) }

// op is one operation of a sequence. Its arguments are small numbers that
// apply resolves against the model at the time it runs, so a sequence
// stays meaningful when shrinking drops operations before it.
type op struct {
	Kind   string
	Thread int // the thread operated on
	Other  int // a second thread (clone target)
	Res    int // a resource (create, move, clone target)
	N      int // a count, a pick among messages, a variant
	Flag   bool
}

func (o op) String() string {
	return fmt.Sprintf("%s(t%d t%d r%d n%d %v)", o.Kind, o.Thread, o.Other, o.Res, o.N, o.Flag)
}

// opWeights are the operation kinds and how often each is drawn.
var opWeights = []struct {
	kind   string
	weight int
}{
	{"create", 8}, {"updateThread", 3}, {"deleteThread", 2}, {"clone", 3}, {"move", 4},
	{"save", 14}, {"resave", 2}, {"updateMessage", 4}, {"deleteMessage", 3},
	{"turn", 10}, {"recall", 6}, {"recallVector", 4}, {"recallTool", 4},
	{"workingMemory", 3}, {"observe", 3}, {"reflect", 1}, {"clearObservations", 1},
	{"reindex", 3}, {"embedderDown", 2}, {"embedderUp", 3}, {"reopen", 2},
	{"bigMessage", 1}, {"tooLarge", 1}, {"abandonedLoop", 2}, {"endedContext", 1},
}

// underResourceOM are the weights of "move" and "observe" in the seeds with
// resource-scoped observational memory: moving a thread into a resource
// whose record has observed newer messages is where messages were lost.
var underResourceOM = map[string]int{"move": 12, "observe": 8}

// genOps draws the sequence of a seed.
func genOps(seed uint64, steps int) []op {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	weights := slices.Clone(opWeights)
	if set := setupOf(seed); set.om && set.omScope == core.ScopeResource {
		for i := range weights {
			if w, ok := underResourceOM[weights[i].kind]; ok {
				weights[i].weight = w
			}
		}
	}
	total := 0
	for _, w := range weights {
		total += w.weight
	}
	out := make([]op, 0, steps)
	for len(out) < steps {
		n := r.IntN(total)
		kind := ""
		for _, w := range weights {
			if n < w.weight {
				kind = w.kind
				break
			}
			n -= w.weight
		}
		out = append(out, op{Kind: kind, Thread: r.IntN(nThreads), Other: r.IntN(nThreads),
			Res: r.IntN(nResources), N: r.IntN(64), Flag: r.IntN(6) == 0})
	}
	return out
}
