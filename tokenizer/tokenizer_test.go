package tokenizer

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

var allEncodings = []string{"o200k_base", "cl100k_base", "p50k_base", "r50k_base"}

func TestKnownCounts(t *testing.T) {
	// Values for cl100k/p50k/r50k match the OpenAI cookbook
	// ("How to count tokens with tiktoken"); o200k values were computed once.
	want := map[string]map[string]int{
		"hello world":                                  {"o200k_base": 2, "cl100k_base": 2, "p50k_base": 2, "r50k_base": 2},
		"tiktoken is great!":                           {"o200k_base": 6, "cl100k_base": 6, "p50k_base": 6, "r50k_base": 6},
		"antidisestablishmentarianism":                 {"o200k_base": 6, "cl100k_base": 6, "p50k_base": 5, "r50k_base": 5},
		"2 + 2 = 4":                                    {"o200k_base": 7, "cl100k_base": 7, "p50k_base": 5, "r50k_base": 5},
		"お誕生日おめでとう":                                    {"o200k_base": 8, "cl100k_base": 9, "p50k_base": 14, "r50k_base": 14},
		"Hello, 世界! 🌍":                                 {"o200k_base": 6, "cl100k_base": 10, "p50k_base": 11, "r50k_base": 11},
		"The quick brown fox jumps over the lazy dog.": {"o200k_base": 10, "cl100k_base": 10, "p50k_base": 10, "r50k_base": 10},
		"": {"o200k_base": 0, "cl100k_base": 0, "p50k_base": 0, "r50k_base": 0},
	}
	for text, byEnc := range want {
		for enc, n := range byEnc {
			tk, err := New(enc)
			if err != nil {
				t.Fatalf("New(%q): %v", enc, err)
			}
			if got := tk.Count(text); got != n {
				t.Errorf("%s.Count(%q) = %d, want %d", enc, text, got, n)
			}
		}
	}
}

func TestRanks(t *testing.T) {
	// Token ids from the OpenAI cookbook / tiktoken: "tiktoken is great!" is
	// 83 1609 5963 374 2294 0 in cl100k_base and 83 8251 2488 382 2212 0 in
	// o200k_base, "hello world" 24912 2375 in o200k_base.
	cases := []struct {
		enc    string
		tokens []string
		want   []uint32
	}{
		{"cl100k_base", []string{"t", "ik", "token", " is", " great", "!"}, []uint32{83, 1609, 5963, 374, 2294, 0}},
		{"o200k_base", []string{"t", "ikt", "oken", " is", " great", "!"}, []uint32{83, 8251, 2488, 382, 2212, 0}},
		{"o200k_base", []string{"hello", " world", "hello world"}, []uint32{24912, 2375, noRank}},
	}
	for _, c := range cases {
		ranks, err := encoders[c.enc].get()
		if err != nil {
			t.Fatal(err)
		}
		for i, tok := range c.tokens {
			if got := ranks.lookup(tok); got != c.want[i] {
				t.Errorf("%s rank of %q = %d, want %d", c.enc, tok, got, c.want[i])
			}
		}
	}
}

func TestEncodingForModel(t *testing.T) {
	cases := map[string]string{
		"gpt-4o":                         "o200k_base",
		"gpt-4o-mini":                    "o200k_base",
		"gpt-4o-2024-08-06":              "o200k_base",
		"chatgpt-4o-latest":              "o200k_base",
		"gpt-4.1":                        "o200k_base",
		"gpt-4.1-nano":                   "o200k_base",
		"gpt-4.5-preview":                "o200k_base",
		"gpt-5":                          "o200k_base",
		"gpt-5-mini":                     "o200k_base",
		"o1":                             "o200k_base",
		"o1-mini":                        "o200k_base",
		"o3-mini":                        "o200k_base",
		"o4-mini":                        "o200k_base",
		"openai/gpt-4o":                  "o200k_base",
		"GPT-4O":                         "o200k_base",
		"ft:gpt-4o-mini:org::abc":        "o200k_base",
		"gpt-4":                          "cl100k_base",
		"gpt-4-turbo":                    "cl100k_base",
		"gpt-4-32k":                      "cl100k_base",
		"gpt-4-0613":                     "cl100k_base",
		"openai/gpt-4":                   "cl100k_base",
		"gpt-3.5-turbo":                  "cl100k_base",
		"gpt-3.5-turbo-16k":              "cl100k_base",
		"gpt-35-turbo":                   "cl100k_base",
		"text-embedding-ada-002":         "cl100k_base",
		"text-embedding-3-small":         "cl100k_base",
		"text-embedding-3-large":         "cl100k_base",
		"ft:gpt-3.5-turbo:org::abc":      "cl100k_base",
		"text-davinci-003":               "p50k_base",
		"text-davinci-002":               "p50k_base",
		"code-davinci-002":               "p50k_base",
		"code-cushman-001":               "p50k_base",
		"davinci":                        "r50k_base",
		"curie":                          "r50k_base",
		"babbage":                        "r50k_base",
		"ada":                            "r50k_base",
		"text-davinci-001":               "r50k_base",
		"code-search-ada-code-001":       "r50k_base",
		"":                               "o200k_base",
		"claude-3-5-sonnet":              "o200k_base",
		"anthropic/claude-sonnet-4":      "o200k_base",
		"llama-3.1-70b":                  "o200k_base",
		"meta-llama/llama-3-8b-instruct": "o200k_base",
		"mistral-large":                  "o200k_base",
	}
	for model, want := range cases {
		if got := EncodingForModel(model); got != want {
			t.Errorf("EncodingForModel(%q) = %q, want %q", model, got, want)
		}
		tk, err := ForModel(model)
		if err != nil {
			t.Fatalf("ForModel(%q): %v", model, err)
		}
		if got := tk.Encoding(); got != want {
			t.Errorf("ForModel(%q).Encoding() = %q, want %q", model, got, want)
		}
	}
}

func TestNewAndDefault(t *testing.T) {
	for _, enc := range allEncodings {
		tk, err := New(enc)
		if err != nil {
			t.Fatalf("New(%q): %v", enc, err)
		}
		if tk.Encoding() != enc {
			t.Errorf("New(%q).Encoding() = %q", enc, tk.Encoding())
		}
	}
	if got := Default().Encoding(); got != "o200k_base" {
		t.Errorf("Default().Encoding() = %q", got)
	}
	if a, b := Default(), Default(); a != b {
		t.Error("Default() should return a shared instance")
	}
	// Zero and nil tokenizers behave like Default instead of panicking.
	var zero Tokenizer
	var nilTk *Tokenizer
	if zero.Encoding() != "o200k_base" || zero.Count("hello world") != 2 {
		t.Error("zero Tokenizer should behave like Default")
	}
	if nilTk.Encoding() != "o200k_base" || nilTk.Count("hello world") != 2 {
		t.Error("nil *Tokenizer should behave like Default")
	}
}

func TestUnknownEncoding(t *testing.T) {
	for _, name := range []string{"", "gpt2", "p50k_edit", "O200K_BASE", "nope"} {
		tk, err := New(name)
		if !errors.Is(err, ErrUnknownEncoding) {
			t.Errorf("New(%q) error = %v, want ErrUnknownEncoding", name, err)
		}
		if tk != nil {
			t.Errorf("New(%q) returned non-nil Tokenizer", name)
		}
	}
}

func TestSpecialTokensAndInvalidUTF8(t *testing.T) {
	texts := []string{
		"<|endoftext|>",
		"before <|endoftext|> after <|endofprompt|>",
		"<|fim_prefix|><|fim_middle|><|fim_suffix|>",
		"\xff\xfe\xfd",
		"ok \xc3\x28 bad \xe2\x82 seq",
		"\x00\x01\x02",
		strings.Repeat("\xff", 1000),
		strings.Repeat(" ", 5000),
	}
	for _, enc := range allEncodings {
		tk, _ := New(enc)
		for _, s := range texts {
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s.Count(%q) panicked: %v", enc, s, r)
					}
				}()
				if n := tk.Count(s); n <= 0 {
					t.Errorf("%s.Count(%q) = %d, want > 0", enc, s, n)
				}
			}()
		}
		// Special tokens are counted as plain text, not as a single token.
		if n := tk.Count("<|endoftext|>"); n != 7 {
			t.Errorf("%s.Count(<|endoftext|>) = %d, want 7", enc, n)
		}
	}
}

func TestConcurrentCount(t *testing.T) {
	text := benchText()
	want := map[string]int{}
	for _, enc := range allEncodings {
		tk, _ := New(enc)
		want[enc] = tk.Count(text)
	}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			enc := allEncodings[i%len(allEncodings)]
			tk, _ := New(enc)
			for j := range 20 {
				s := text
				if j%2 == 1 {
					s = "hello world"
				}
				got := tk.Count(s)
				if s == text && got != want[enc] {
					t.Errorf("%s concurrent Count = %d, want %d", enc, got, want[enc])
				}
				if s != text && got != 2 {
					t.Errorf("%s concurrent Count(hello world) = %d, want 2", enc, got)
				}
				_ = Default().Count(s)
			}
		}()
	}
	wg.Wait()
}

// failingTransport records every request and fails it.
type failingTransport struct{ calls atomic.Int64 }

func (f *failingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	f.calls.Add(1)
	return nil, fmt.Errorf("network access attempted: %s", req.URL)
}

const netCheckEnv = "TOKENIZER_NETCHECK_CHILD"

// TestNoNetworkAccess re-runs itself in a fresh process (so no encoding is
// cached yet), with HTTP disabled and an empty tiktoken cache directory, and
// loads all four encodings there.
func TestNoNetworkAccess(t *testing.T) {
	if os.Getenv(netCheckEnv) == "1" {
		noNetworkChild(t)
		return
	}
	if testing.Short() {
		t.Skip("spawns a subprocess")
	}
	cacheDir := t.TempDir()
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:1")
	t.Setenv("HTTPS_PROXY", "http://127.0.0.1:1")
	t.Setenv("http_proxy", "http://127.0.0.1:1")
	t.Setenv("https_proxy", "http://127.0.0.1:1")
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")
	t.Setenv("TIKTOKEN_CACHE_DIR", cacheDir)
	t.Setenv("DATA_GYM_CACHE_DIR", cacheDir)
	t.Setenv(netCheckEnv, "1")

	cmd := exec.Command(os.Args[0], "-test.run=^TestNoNetworkAccess$", "-test.v", "-test.count=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child process failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "NETCHECK-OK") {
		t.Fatalf("child process did not run the check:\n%s", out)
	}
	entries, err := os.ReadDir(cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Errorf("tiktoken cache dir was written to (%d entries): network loader used", len(entries))
	}
}

func noNetworkChild(t *testing.T) {
	rt := &failingTransport{}
	http.DefaultTransport = rt
	http.DefaultClient.Transport = rt

	// Sanity check: the recorder really catches the default HTTP client.
	if _, err := http.Get("https://openaipublic.blob.core.windows.net/encodings/x"); err == nil {
		t.Fatal("expected failing transport to fail")
	}
	if rt.calls.Load() != 1 {
		t.Fatalf("failing transport not installed (calls=%d)", rt.calls.Load())
	}
	rt.calls.Store(0)

	for _, enc := range encoders {
		if enc.ranks != nil {
			t.Fatalf("%s already loaded in fresh process", enc.name)
		}
	}
	// Load all four encodings lazily and concurrently (first use races on the
	// per-encoding sync.Once; run under -race).
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			enc := allEncodings[i%len(allEncodings)]
			tk, err := New(enc)
			if err != nil {
				t.Error(err)
				return
			}
			if got := tk.Count("hello world"); got != 2 {
				t.Errorf("%s.Count(hello world) = %d, want 2", enc, got)
			}
		}()
	}
	wg.Wait()
	for _, enc := range allEncodings {
		if _, err := encoders[enc].get(); err != nil {
			t.Errorf("%s failed to load: %v", enc, err)
		}
	}
	if n := rt.calls.Load(); n != 0 {
		t.Fatalf("network access attempted %d times", n)
	}
	fmt.Println("NETCHECK-OK")
}

func benchText() string {
	const para = "The quick brown fox jumps over the lazy dog. Memory systems for LLM agents " +
		"store conversation turns, summaries and facts, and must fit them into a limited context window. "
	var b strings.Builder
	for b.Len() < 1024 {
		b.WriteString(para)
	}
	return b.String()[:1024]
}

func BenchmarkCount(b *testing.B) {
	text := benchText()
	tk := Default()
	tk.Count(text) // load outside the timed loop
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		tk.Count(text)
	}
}

func ExampleTokenizer_Count() {
	tk, err := ForModel("openai/gpt-4o")
	if err != nil {
		panic(err)
	}
	fmt.Println(tk.Encoding(), tk.Count("hello world"))
	// Output: o200k_base 2
}
