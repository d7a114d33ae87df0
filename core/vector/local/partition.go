package local

import (
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/vector"
)

// index is one named index: a partition per resource.
type index struct {
	dim     int
	version string // IndexSpec.Version of the last EnsureIndex
	parts   map[string]*partition
	approx  int // records from which a partition searches its graph
}

func newIndex(dim, approx int) *index {
	return &index{dim: dim, parts: map[string]*partition{}, approx: approx}
}

func (ix *index) part(resource string) *partition {
	p := ix.parts[resource]
	if p == nil {
		p = newPartition(resource, ix.approx)
		ix.parts[resource] = p
	}
	return p
}

// partition holds one resource's records in dense slots: a record's slot
// indexes its vector codes, its thread, its BM25 length and its terms. A
// replaced or deleted record's slot is marked dead (the graph may still
// route through it, its postings stay) and reclaimed by compact.
type partition struct {
	version  string // IndexSpec.Version the records were written with
	resource string
	ids      map[string]int32 // record id -> slot
	slots    []slot
	dead     int
	vecs     vectors
	thr      []int32 // thread number by slot (-1 = dead)
	threads  map[string]int32
	tnames   []string
	tcount   []int32        // live records per thread number
	roles    []message.Role // by role number
	// msgIDs holds the message ids that are not a prefix of their record's
	// id, by slot (core.Memory's record ids are "messageID#chunk").
	msgIDs map[int32]string
	// md holds the message metadata of the slots that have any (metafilter.go).
	md map[int32]map[string]any
	// BM25: postings and live document frequency by term number, document
	// length by slot.
	termNo map[string]int32
	words  []string // term text by number
	post   []posting
	df     []int32
	dl     []int32
	totLen int
	// terms lists each slot's distinct term numbers, ascending, as uvarint
	// deltas; slot s's end at termEnd[s] (its start at termEnd[s-1]). A
	// remove needs them to keep df live; 1–2 bytes a term instead of a
	// []term per slot.
	terms   []byte
	termEnd []uint32
	// graph indexes slots [0, graph.n) once the partition holds approx
	// records; later slots are searched exactly until indexGraph adds them.
	approx int
	graph  *graph
	// building: a background build of the graph is under way (Store.indexGraph);
	// gen counts compactions, which renumber slots and so void such a build.
	building bool
	gen      uint32
}

// slot is a stored record without its vector (in vecs), terms (in terms and
// the postings) and text (not kept: BM25 needs only its terms): 32 bytes.
type slot struct {
	id      string
	created int64 // Unix nanoseconds, UTC
	msgLen  int32 // the message id is id[:msgLen]; -1: in msgIDs
	role    int32 // number in roles
}

// posting lists the slots containing a term in ascending order (slots are
// only appended between compactions), with the term's frequency in each.
// Dead slots stay until compact; df counts the live ones. peaks bounds the
// term's BM25 score in any of them (bm25.go).
type posting struct {
	slots []int32
	tfs   []uint16
	peaks peaks
}

func newPartition(resource string, approx int) *partition {
	return &partition{resource: resource, ids: map[string]int32{}, threads: map[string]int32{},
		termNo: map[string]int32{}, approx: approx}
}

// live is the number of records.
func (p *partition) live() int { return len(p.ids) }

// put stores r, replacing the record with its ID.
func (p *partition) put(r vector.Record) {
	codes := make([]int8, len(r.Vector))
	p.putCoded(r, codes, quantize(r.Vector, codes))
}

// putCoded stores r with its quantized vector (r.Vector is not read).
func (p *partition) putCoded(r vector.Record, codes []int8, scale float32) {
	p.remove(r.ID)
	s := int32(len(p.slots))
	sl := slot{id: r.ID, created: r.Meta.CreatedAt.UnixNano(), msgLen: int32(len(r.Meta.MessageID)), role: p.roleNo(r.Meta.Role)}
	if !strings.HasPrefix(r.ID, r.Meta.MessageID) {
		sl.msgLen = -1
		if p.msgIDs == nil {
			p.msgIDs = map[int32]string{}
		}
		p.msgIDs[s] = r.Meta.MessageID
	}
	p.slots = append(p.slots, sl)
	p.ids[r.ID] = s
	p.vecs.add(codes, scale)
	p.thr = append(p.thr, p.threadNo(r.Meta.ThreadID))
	p.tcount[p.thr[s]]++
	p.index(s, keywords(r.Keywords, r.Text))
	p.setMetadata(s, r.Meta.Metadata)
}

// roleNo returns role's number, adding it if new (a partition sees a few).
func (p *partition) roleNo(role message.Role) int32 {
	for i, r := range p.roles {
		if r == role {
			return int32(i)
		}
	}
	p.roles = append(p.roles, role)
	return int32(len(p.roles) - 1)
}

// messageID returns the message id of slot s.
func (p *partition) messageID(s int32) string {
	sl := &p.slots[s]
	if sl.msgLen < 0 {
		return p.msgIDs[s]
	}
	return sl.id[:sl.msgLen]
}

func (p *partition) threadNo(thread string) int32 {
	t, ok := p.threads[thread]
	if !ok {
		t = int32(len(p.tnames))
		p.threads[thread] = t
		p.tnames = append(p.tnames, thread)
		p.tcount = append(p.tcount, 0)
	}
	return t
}

// index adds slot s (the last) with words to the postings and term lists.
func (p *partition) index(s int32, words []string) {
	tf := make(map[int32]uint16, len(words))
	for _, w := range words {
		if no := p.termOf(w); tf[no] < math.MaxUint16 {
			tf[no]++
		}
	}
	nos := make([]int32, 0, len(tf))
	for no := range tf {
		nos = append(nos, no)
	}
	slices.Sort(nos)
	prev := int32(0)
	for _, no := range nos {
		pl := &p.post[no]
		pl.slots, pl.tfs = append(pl.slots, s), append(pl.tfs, tf[no])
		pl.peaks = pl.peaks.add(tf[no], int32(len(words)))
		p.df[no]++
		p.terms = binary.AppendUvarint(p.terms, uint64(no-prev))
		prev = no
	}
	p.termEnd = append(p.termEnd, uint32(len(p.terms)))
	p.dl = append(p.dl, int32(len(words)))
	p.totLen += len(words)
}

// termOf returns w's term number, adding the term if new.
func (p *partition) termOf(w string) int32 {
	no, ok := p.termNo[w]
	if !ok {
		no = int32(len(p.post))
		w = strings.Clone(w) // key and text must not pin the record's whole keywords
		p.termNo[w] = no
		p.words = append(p.words, w)
		p.post = append(p.post, posting{})
		p.df = append(p.df, 0)
	}
	return no
}

// termsOf calls fn with each distinct term number of slot s, ascending.
func (p *partition) termsOf(s int32, fn func(no int32)) {
	b := p.terms[:p.termEnd[s]]
	if s > 0 {
		b = b[p.termEnd[s-1]:]
	}
	no := int32(0)
	for len(b) > 0 {
		d, n := binary.Uvarint(b)
		b = b[n:]
		no += int32(d)
		fn(no)
	}
}

// tf returns the frequency of term no in slot s (its posting list is sorted).
func (p *partition) tf(no, s int32) uint16 {
	pl := &p.post[no]
	i, _ := slices.BinarySearch(pl.slots, s)
	return pl.tfs[i]
}

// remove marks the record's slot dead and takes it out of the document
// frequencies; compact reclaims the slots once they are a quarter of the
// partition.
func (p *partition) remove(id string) {
	s, ok := p.ids[id]
	if !ok {
		return
	}
	delete(p.ids, id)
	p.tcount[p.thr[s]]--
	p.thr[s] = -1
	p.totLen -= int(p.dl[s])
	p.termsOf(s, func(no int32) { p.df[no]-- })
	p.slots[s] = slot{}
	delete(p.msgIDs, s)
	delete(p.md, s)
	p.dead++
	if p.dead > 64 && p.dead > len(p.slots)/4 {
		p.compact()
	}
}

// compact rewrites the partition without its dead slots; the graph is
// rebuilt by the next search that needs it.
func (p *partition) compact() {
	q := newPartition(p.resource, p.approx)
	q.version, q.gen = p.version, p.gen+1
	for s := range p.slots {
		if p.thr[s] >= 0 {
			q.putCoded(p.record(int32(s)), p.vecs.code(int32(s)), p.vecs.scale[s])
		}
	}
	*p = *q
}

// record rebuilds slot s as a vector.Record without its vector, its terms
// as Keywords (repeats kept, order not).
func (p *partition) record(s int32) vector.Record {
	return vector.Record{ID: p.slots[s].id, Keywords: p.keywordsOf(s), Meta: p.meta(s)}
}

// keywordsOf returns slot s's terms as a Keywords string.
func (p *partition) keywordsOf(s int32) string {
	var b strings.Builder
	p.termsOf(s, func(no int32) {
		w := p.words[no]
		for range p.tf(no, s) {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(w)
		}
	})
	return b.String()
}

func (p *partition) meta(s int32) vector.Meta {
	sl := &p.slots[s]
	return vector.Meta{MessageID: p.messageID(s), ThreadID: p.tnames[p.thr[s]], ResourceID: p.resource,
		Role: p.roles[sl.role], CreatedAt: time.Unix(0, sl.created).UTC(), Metadata: message.CloneMetadata(p.md[s])}
}
