package budget

import (
	"encoding/binary"
	"hash/fnv"
	"strconv"

	"github.com/agentmem/agentmem/core/message"
)

// Memo remembers the counts of messages by their content, for a caller that
// counts the same unsaved messages again and again (the steps of an agent
// loop). The zero value is ready; a Memo is not safe for concurrent use.
type Memo struct{ counts map[uint64]int }

// MessageTokens returns MessageTokens(tk, m), counted once per distinct
// role and content.
func (c *Memo) MessageTokens(tk Counter, m *message.Message) int {
	key := contentKey(m)
	if n, ok := c.counts[key]; ok {
		return n
	}
	n := MessageTokens(tk, m)
	if c.counts == nil {
		c.counts = map[uint64]int{}
	}
	c.counts[key] = n
	return n
}

// contentKey hashes everything MessageTokens reads.
func contentKey(msg *message.Message) uint64 {
	h := fnv.New64a()
	field := func(s string) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	field(string(msg.Role))
	for i := range msg.Content.Parts {
		p := &msg.Content.Parts[i]
		field(p.Type)
		field(p.Text)
		field(p.Reasoning)
		field(p.MimeType)
		field(strconv.Itoa(len(p.Data)))
		if ti := p.ToolInvocation; ti != nil {
			field(ti.State)
			field(ti.ToolName)
			field(string(ti.Args))
			field(string(ti.Result))
			field(ti.ErrorText)
		}
	}
	return h.Sum64()
}
