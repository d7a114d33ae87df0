package local

import (
	"encoding/json"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/vector"
)

// setMetadata keeps slot s's message metadata as a JSON round trip leaves
// it (numbers float64, times strings), so that a filter sees the same
// values before and after the store is saved and opened.
func (p *partition) setMetadata(s int32, md map[string]any) {
	if len(md) == 0 {
		return
	}
	if md = vector.DecodeMetadata(encodeMetadata(md)); md == nil {
		return
	}
	if p.md == nil {
		p.md = map[int32]map[string]any{}
	}
	p.md[s] = md
}

// metadataJSON is slot s's metadata as persisted (nil when it has none).
func (p *partition) metadataJSON(s int32) []byte {
	if md := p.md[s]; len(md) > 0 {
		return encodeMetadata(md)
	}
	return nil
}

func encodeMetadata(md map[string]any) []byte {
	b, err := json.Marshal(md)
	if err != nil {
		// Metadata reached the store through a message, whose encoding
		// already succeeded; a value JSON cannot hold is not filterable.
		return nil
	}
	return b
}

// searchFiltered returns the k best hits of search that match f, best
// first. search(n) gives the n best of the partition's scope; it is asked
// for more until k match or it has nothing more to give, so a filter never
// leaves out a matching record because others scored better. Hybrid
// fusion normalizes over the candidates search gave, matching or not.
func (p *partition) searchFiltered(f message.Filter, k int, search func(n int) []scored) []scored {
	if f.IsZero() {
		return search(k)
	}
	n := max(4*k, 64)
	for {
		res := search(n)
		out := res[:0:0]
		for _, r := range res {
			if f.Match(p.md[r.s]) {
				out = append(out, r)
			}
		}
		if len(out) >= k || len(res) < n || n >= len(p.slots) {
			return out
		}
		n = min(4*n, len(p.slots))
	}
}
