package local

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/analysis"
	"github.com/agentmem/agentmem/core/vector/vectortest"
)

// bm25Exhaustive is the reference bm25 is checked against: it scores every
// record of thread (-1 = all) sharing a term with q's keywords, walking each
// term's whole posting list into a dense score array, and returns them all,
// unordered.
func (p *partition) bm25Exhaustive(q vector.Query, thread int32) []scored {
	n := float64(p.live())
	if n == 0 {
		return nil
	}
	avg := float64(p.totLen) / n
	if avg == 0 {
		avg = 1
	}
	c := bm25Norm{k1b: bm25K1 * (1 - bm25B), k1bl: bm25K1 * bm25B / avg}
	scores := make([]float64, len(p.slots))
	var touched []int32
	seen := map[int32]bool{}
	for _, w := range keywords(q.Keywords, q.Text) {
		no, ok := p.termNo[w]
		if !ok || seen[no] || p.df[no] == 0 {
			continue
		}
		seen[no] = true
		pl := &p.post[no]
		df := float64(p.df[no])
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for i, s := range pl.slots {
			if !p.accepts(s, thread) {
				continue
			}
			if scores[s] == 0 {
				touched = append(touched, s)
			}
			scores[s] += c.score(idf, pl.tfs[i], p.dl[s])
		}
	}
	out := make([]scored, len(touched))
	for i, s := range touched {
		out[i] = scored{s, scores[s]}
	}
	return out
}

// sameAsExhaustive checks that bm25 returns the first n of the exhaustive
// ranking: the same records in the same order (ties by ID) with the same
// scores to the bit. It returns the postings bm25 read and the exhaustive
// search reads.
func sameAsExhaustive(t *testing.T, p *partition, q vector.Query, thread int32, n int) (read, all int) {
	t.Helper()
	want := p.top(p.bm25Exhaustive(q, thread), n)
	got, read := p.bm25Search(q, thread, n)
	if len(got) != len(want) {
		t.Fatalf("query %q thread %d n %d: %d hits, exhaustive %d", q.Keywords, thread, n, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("query %q thread %d n %d: hit %d is %s %v, exhaustive %s %v", q.Keywords, thread, n, i,
				p.slots[got[i].s].id, got[i].score, p.slots[want[i].s].id, want[i].score)
		}
	}
	ts, _ := p.bm25Terms(q)
	for _, tm := range ts {
		all += len(p.post[tm.no].slots)
	}
	return read, all
}

// zipfCorpus writes records of words drawn from a Zipf distribution over
// vocab words (a few very common, most rare), of skewed lengths (some of one
// word, some of hundreds) and frequencies (some words repeated dozens of
// times), into threads of uneven sizes.
type zipfCorpus struct {
	r     *rand.Rand
	zipf  *rand.Zipf
	vocab int
}

func newZipfCorpus(seed uint64, vocab int) *zipfCorpus {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return &zipfCorpus{r: r, zipf: rand.NewZipf(r, 1.1, 1, uint64(vocab-1)), vocab: vocab}
}

func (z *zipfCorpus) word() string { return fmt.Sprint("w", z.zipf.Uint64()) }

func (z *zipfCorpus) text() string {
	var n int
	switch x := z.r.IntN(20); {
	case x == 0:
		n = 1 + z.r.IntN(2)
	case x == 1:
		n = 100 + z.r.IntN(300)
	default:
		n = 3 + z.r.IntN(30)
	}
	words := make([]string, 0, n)
	for range n {
		words = append(words, z.word())
	}
	if z.r.IntN(10) == 0 { // one word many times
		w := z.word()
		for range 1 + z.r.IntN(60) {
			words = append(words, w)
		}
	}
	return strings.Join(words, " ")
}

func (z *zipfCorpus) record(id string) vector.Record {
	thread := fmt.Sprint("t", min(z.r.IntN(8), z.r.IntN(8))) // t0 the largest
	return vector.Record{ID: id, Vector: []float32{1}, Keywords: z.text(), Meta: vector.Meta{MessageID: id, ThreadID: thread}}
}

// query has 1–12 words: common ones, rare ones, repeats and an unknown one.
func (z *zipfCorpus) query() vector.Query {
	words := make([]string, 1+z.r.IntN(12))
	for i := range words {
		switch z.r.IntN(8) {
		case 0:
			words[i] = fmt.Sprint("w", z.r.IntN(z.vocab)) // uniform: mostly rare
		case 1:
			words[i] = "unknown"
		default:
			words[i] = z.word()
		}
	}
	return vector.Query{Keywords: strings.Join(words, " ")}
}

// fill writes records, then deletes and rewrites some of them; compact
// controls whether the deletions are enough for the partition to compact.
func (z *zipfCorpus) fill(records int, compact bool) *partition {
	p := newPartition("r", 1)
	for i := range records {
		p.put(z.record(fmt.Sprint("m", i)))
	}
	dels := records / 10
	if compact {
		dels = records/4 + 100
	}
	for range dels {
		p.remove(fmt.Sprint("m", z.r.IntN(records)))
	}
	for range records / 10 {
		id := fmt.Sprint("m", z.r.IntN(records))
		p.put(z.record(id))
	}
	return p
}

// threadOf returns -1 (no filter) or a thread of p, at random.
func threadOf(r *rand.Rand, p *partition) int32 {
	if r.IntN(3) == 0 || len(p.tnames) == 0 {
		return -1
	}
	return int32(r.IntN(len(p.tnames)))
}

func TestBM25MatchesExhaustiveZipf(t *testing.T) {
	for seed := range uint64(6) {
		z := newZipfCorpus(seed, 3000)
		p := z.fill(4000, seed%2 == 1)
		for range 150 {
			n := []int{1, 4, 10, 100, 1000}[z.r.IntN(5)]
			sameAsExhaustive(t, p, z.query(), threadOf(z.r, p), n)
		}
	}
}

// TestBM25MatchesExhaustiveTies uses few distinct texts, each many times:
// the n-th score is shared by many records, ranked by ID.
func TestBM25MatchesExhaustiveTies(t *testing.T) {
	z := newZipfCorpus(42, 200)
	texts := make([]string, 30)
	for i := range texts {
		texts[i] = z.text()
	}
	p := newPartition("r", 1)
	for i := range 3000 {
		p.put(vector.Record{ID: fmt.Sprint("m", z.r.IntN(5000)), Vector: []float32{1}, Keywords: texts[z.r.IntN(len(texts))],
			Meta: vector.Meta{ThreadID: fmt.Sprint("t", i%3)}})
	}
	for range 200 {
		sameAsExhaustive(t, p, z.query(), threadOf(z.r, p), []int{1, 4, 100, 150}[z.r.IntN(4)])
	}
}

// TestBM25MatchesExhaustiveLoCoMo indexes the LoCoMo turns as Memory does
// (analyzed, with the previous turn as context, speaker names kept in the
// text), each turn 20 times as the
// 100k benchmark repeats them, and asks every question for the hybrid
// candidates and the default top 4, in the whole resource and in one
// session. The long lists of common words (speakers' names) must mostly go
// unread.
func TestBM25MatchesExhaustiveLoCoMo(t *testing.T) {
	p, questions := locomoPartition(t, 20)
	an := analysis.Must(analysis.English)
	r := rand.New(rand.NewPCG(1, 2))
	var read, all int
	for _, qt := range questions {
		q := vector.Query{Text: qt, Keywords: an.Analyze(qt)}
		for _, n := range []int{vector.FusionDepth, 4} {
			rd, al := sameAsExhaustive(t, p, q, -1, n)
			read, all = read+rd, all+al
			sameAsExhaustive(t, p, q, threadOf(r, p), n)
		}
	}
	t.Logf("postings read: %d of %d (%.1f%%)", read, all, 100*float64(read)/float64(all))
	if read*2 > all {
		t.Errorf("read %d of %d postings: pruning skips less than half", read, all)
	}
}

// locomoPartition indexes the LoCoMo turns copies times each, one thread per
// session, and returns the partition and the questions.
func locomoPartition(t *testing.T, copies int) (*partition, []string) {
	an := analysis.Must(analysis.English)
	p := newPartition("r", 1)
	var questions []string
	i := 0
	for _, c := range vectortest.LoadLoCoMo(t) {
		prev := ""
		for _, turn := range c.Turns {
			text := turn.Speaker + ": " + turn.Text
			kw := an.Analyze(prev + "\n" + text)
			prev = text
			for range copies {
				p.put(vector.Record{ID: fmt.Sprint("m", i), Vector: []float32{1}, Keywords: kw,
					Meta: vector.Meta{MessageID: fmt.Sprint("m", i), ThreadID: c.SampleID + "/" + turn.Session}})
				i++
			}
		}
		for _, q := range c.Questions {
			questions = append(questions, q.Question)
		}
	}
	return p, questions
}

// FuzzBM25 compares bm25 with the exhaustive search on small random corpora.
func FuzzBM25(f *testing.F) {
	for _, s := range []uint64{1, 7, 99} {
		f.Add(s, uint16(300), uint8(10), false)
	}
	f.Add(uint64(5), uint16(1000), uint8(100), true)
	f.Fuzz(func(t *testing.T, seed uint64, records uint16, n uint8, compact bool) {
		z := newZipfCorpus(seed, 500)
		p := z.fill(int(records%2000)+1, compact)
		for range 20 {
			sameAsExhaustive(t, p, z.query(), threadOf(z.r, p), int(n)+1)
		}
	})
}

// BenchmarkBM25 times the keyword side of a hybrid query (its top
// vector.FusionDepth) against the exhaustive search on the two corpora of the
// 100k Recall benchmark (integration_test): 100k messages, each indexed with
// the one before as context, of 12 words drawn from 20 ("uniform20") or
// LoCoMo turns drawn at random ("locomo", asked its questions), and the
// share of the query terms' postings the pruned search reads.
//
//	go test ./core/vector/local/ -run '^$' -bench BM25 -benchtime 200x
func BenchmarkBM25(b *testing.B) {
	words := strings.Fields("budget travel vendor hiring plan review quarter meeting report launch " +
		"design customer invoice server backup release roadmap training office contract")
	uniform := func(r *rand.Rand) string {
		s := make([]string, 12)
		for i := range s {
			s[i] = words[r.IntN(len(words))]
		}
		return strings.Join(s, " ")
	}
	turns, questions := vectortest.LoCoMoTexts(b)
	pick := func(from []string) func(*rand.Rand) string {
		return func(r *rand.Rand) string { return from[r.IntN(len(from))] }
	}
	for _, c := range []struct {
		name        string
		text, query func(*rand.Rand) string
	}{{"uniform20", uniform, uniform}, {"locomo", pick(turns), pick(questions)}} {
		b.Run(c.name, func(b *testing.B) { benchBM25(b, c.text, c.query) })
	}
}

func benchBM25(b *testing.B, text, query func(*rand.Rand) string) {
	an := analysis.Must(analysis.English)
	r := rand.New(rand.NewPCG(7, 7))
	p := newPartition("r", 1)
	prev := ""
	for i := range 100_000 {
		t := text(r)
		p.put(vector.Record{ID: fmt.Sprint("m", i), Vector: []float32{1}, Keywords: an.Analyze(prev + "\n" + t),
			Meta: vector.Meta{MessageID: fmt.Sprint("m", i), ThreadID: "t"}})
		prev = t
	}
	var pruned, exhaustive []time.Duration
	var read, all int
	for range b.N {
		qt := query(r)
		q := vector.Query{Text: qt, Keywords: an.Analyze(qt)}
		t0 := time.Now()
		_, rd := p.bm25Search(q, -1, vector.FusionDepth)
		t1 := time.Now()
		p.top(p.bm25Exhaustive(q, -1), vector.FusionDepth)
		pruned, exhaustive = append(pruned, t1.Sub(t0)), append(exhaustive, time.Since(t1))
		ts, _ := p.bm25Terms(q)
		for _, t := range ts {
			all += len(p.post[t.no].slots)
		}
		read += rd
	}
	p50 := func(l []time.Duration) float64 {
		slices.Sort(l)
		return float64(l[len(l)/2].Microseconds()) / 1000
	}
	b.ReportMetric(p50(pruned), "pruned-p50-ms")
	b.ReportMetric(p50(exhaustive), "exhaustive-p50-ms")
	b.ReportMetric(p50(exhaustive)/p50(pruned), "speedup")
	b.ReportMetric(100*float64(read)/float64(all), "%postings-read")
}
