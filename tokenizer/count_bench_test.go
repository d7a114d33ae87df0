package tokenizer

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// The benchmarks here compare this package with tiktoken-go in one run:
//
//	go test -run '^$' -bench 'Count(Chat|Long)|Load|FirstCount' -benchmem ./tokenizer/
//
// "new" is Count, "tiktoken-go" is len(EncodeOrdinary), the path Count took
// before; both on o200k_base.

// chatMessages returns n varied chat messages of about 30 words.
func chatMessages(n int) []string {
	words := strings.Fields("I think we should ship the order tomorrow, but the invoice " +
		"for account 4821 still shows a refund of $129.99 from 2024-11-03. Can you check " +
		"why Berlin's weather API returned HTTP 503? It's fine; we'll retry at 09:30 UTC " +
		"and email Paris about the password reset.")
	msgs := make([]string, n)
	for i := range msgs {
		s := make([]string, 30)
		for k := range s {
			s[k] = words[(i*7+k*13)%len(words)]
		}
		msgs[i] = fmt.Sprintf("message %d: %s", i, strings.Join(s, " "))
	}
	return msgs
}

// longText returns a ~20 KB mix of prose, code and JSON.
func longText() string {
	var b strings.Builder
	for b.Len() < 20000 {
		for _, f := range corpusFragments[:16] {
			b.WriteString(f)
			b.WriteString("\n")
		}
	}
	return b.String()
}

// benchCounters returns the two counters compared, on o200k_base.
func benchCounters(b *testing.B) map[string]func(string) int {
	ref := referenceEncoders(b)[o200kBase]
	tk := Default()
	tk.Warm()
	return map[string]func(string) int{
		"new":         tk.Count,
		"tiktoken-go": func(s string) int { return len(ref.EncodeOrdinary(s)) },
	}
}

func BenchmarkCountChat(b *testing.B) {
	msgs := chatMessages(1000)
	size := 0
	for _, m := range msgs {
		size += len(m)
	}
	for _, name := range []string{"new", "tiktoken-go"} {
		count := benchCounters(b)[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(size / len(msgs)))
			i := 0
			for b.Loop() {
				count(msgs[i%len(msgs)])
				i++
			}
		})
	}
}

func BenchmarkCountLong(b *testing.B) {
	text := longText()
	for _, name := range []string{"new", "tiktoken-go"} {
		count := benchCounters(b)[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				count(text)
			}
		})
	}
}

// BenchmarkLoad loads o200k_base's ranks as the first Count of a process
// does: "new" with openRanks, "tiktoken-go" with the offline loader and
// NewCoreBPE (what GetEncoding did on first use).
func BenchmarkLoad(b *testing.B) {
	b.Run("new", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := openRanks(o200kRanks); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("tiktoken-go", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ranks, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(o200kBase + ".tiktoken")
			if err != nil {
				b.Fatal(err)
			}
			enc, err := tiktoken.NewCoreBPE(ranks, map[string]int{tiktoken.ENDOFTEXT: 199999}, o200kPattern)
			if err != nil || enc == nil {
				b.Fatal(err)
			}
		}
	})
}

// o200kPattern is tiktoken-go's o200k_base pattern.
const o200kPattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
	`|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
	`|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`

const firstCountEnv = "TOKENIZER_FIRST_COUNT_CHILD"

// BenchmarkFirstCount runs the first Count of a fresh process (this test
// binary re-run per iteration) and reports the time that Count took as
// ms/first-count; the process start is not part of it.
func BenchmarkFirstCount(b *testing.B) {
	for _, name := range []string{"new", "tiktoken-go"} {
		b.Run(name, func(b *testing.B) {
			var total time.Duration
			for b.Loop() {
				total += firstCountInChild(b, name)
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/first-count")
		})
	}
}

// firstCountInChild runs TestFirstCountChild in a fresh process and returns
// the duration it reports.
func firstCountInChild(b *testing.B, mode string) time.Duration {
	cmd := exec.Command(os.Args[0], "-test.run=^TestFirstCountChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), firstCountEnv+"="+mode)
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("child: %v\n%s", err, out)
	}
	_, after, ok := strings.Cut(string(out), "FIRST-COUNT-NS ")
	if !ok {
		b.Fatalf("child printed no duration:\n%s", out)
	}
	ns, err := strconv.ParseInt(strings.Fields(after)[0], 10, 64)
	if err != nil {
		b.Fatal(err)
	}
	return time.Duration(ns)
}

// TestFirstCountChild is BenchmarkFirstCount's child process; run alone it
// checks that the first Count of either counter is right.
func TestFirstCountChild(t *testing.T) {
	mode := os.Getenv(firstCountEnv)
	start := time.Now()
	var n int
	switch mode {
	case "tiktoken-go":
		tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
		tk, err := tiktoken.GetEncoding(o200kBase)
		if err != nil {
			t.Fatal(err)
		}
		n = len(tk.EncodeOrdinary("hello world"))
	default:
		n = Default().Count("hello world")
	}
	elapsed := time.Since(start)
	if n != 2 {
		t.Fatalf("first count of %q = %d, want 2", mode, n)
	}
	if mode != "" {
		fmt.Printf("FIRST-COUNT-NS %d\n", elapsed.Nanoseconds())
	}
}
