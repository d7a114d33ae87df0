package tokenizer

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// The tests in this file compare Count with github.com/pkoukk/tiktoken-go,
// the implementation whose counts stored data carries: they must be equal
// for every input.

var (
	referenceOnce sync.Once
	reference     map[string]*tiktoken.Tiktoken
	referenceErr  error
)

// referenceEncoders returns tiktoken-go's encoders, loaded offline.
func referenceEncoders(t testing.TB) map[string]*tiktoken.Tiktoken {
	t.Helper()
	referenceOnce.Do(func() {
		tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
		reference = map[string]*tiktoken.Tiktoken{}
		for _, enc := range allEncodings {
			tk, err := tiktoken.GetEncoding(enc)
			if err != nil {
				referenceErr = err
				return
			}
			reference[enc] = tk
		}
	})
	if referenceErr != nil {
		t.Fatal(referenceErr)
	}
	return reference
}

// checkCounts fails t when any encoding's Count of text differs from tiktoken-go's.
func checkCounts(t testing.TB, text string) {
	t.Helper()
	for enc, ref := range referenceEncoders(t) {
		tk, _ := New(enc)
		want := len(ref.EncodeOrdinary(text))
		if got := tk.Count(text); got != want {
			t.Errorf("%s.Count(%q) = %d, tiktoken-go counts %d", enc, clip(text), got, want)
		}
	}
}

// clip shortens long texts in failure messages.
func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + fmt.Sprintf("...(%d bytes)", len(s))
	}
	return s
}

// corpusFragments are the building blocks of the differential corpus: each
// exercises a branch of the split patterns.
var corpusFragments = []string{
	// English prose and chat.
	"The quick brown fox jumps over the lazy dog.",
	"Hi! Can you remind me what we decided about the Q3 budget? I think it was $12,500.",
	"Memory systems for LLM agents store conversation turns, summaries and facts.",
	// Contractions in every case, inside words, at ends, doubled.
	"I'm sure you're right, they've said it'll be fine, she'd know, it's Tom's.",
	"I'M YOU'RE THEY'VE IT'LL SHE'D IT'S TOM'S don'T wE'Ll",
	"'s 't 're 've 'm 'll 'd 'S 'T 'RE 'VE 'M 'LL 'D 'x ''s '' ' 'r 'l",
	"rock'n'roll O'Neill y'all ma'am 'tis ol' '90s",
	"ÉCOLE'S naïve'S Straße'll ΣΊΣΥΦΟΣ'd",
	// Code.
	"func (t *Tokenizer) Count(text string) int {\n\tif text == \"\" {\n\t\treturn 0\n\t}\n}",
	"for (int i = 0; i < n; ++i) { sum += a[i] * b[i]; } // dot\r\n",
	"def f(x):\n    return x**2 if x > 0 else -x  # comment\n\n\n",
	"SELECT id, name FROM users WHERE created_at >= '2024-01-01' ORDER BY id DESC;",
	"https://example.com/a/b?c=d&e=f#g path/to/file.go:12:34 C:\\Users\\me",
	"<div class=\"x\">&nbsp;&lt;tag&gt;</div>/* c */ // x //\n//\r\n/",
	// JSON.
	`{"id":"msg_01","role":"assistant","content":[{"type":"text","text":"ok"}],"n":3.14e-10}`,
	"[1,2,3,null,true,false,\"\\u00e9\\n\"]",
	// Numbers and dates.
	"1 12 123 1234 12345 123456 1234567 3.14159 -42 +7 1e10 0x1F 1,000,000",
	"2024-12-31T23:59:59Z 12/31/2024 31.12.2024 23:59 ٠١٢٣٤٥ ١٢٣٤ ⅫⅣ ½ ² ³ 𝟙𝟚𝟛",
	"v1.2.3 ISO8601 A1B2C3 abc123def 123abc",
	// Whitespace runs and line endings.
	"a  b   c    d\t\te\t \tf \u00a0g\u3000h\u2003i",
	"   leading and trailing   ",
	"line1\nline2\r\nline3\rline4\n\n\nline5\r\n\r\n  \n  x",
	" \n \r\n\t\n \t x \n",
	"end with spaces   ",
	"end with newline\n",
	"\n\n\n",
	"\t",
	"!\n/\n/x ?\r\n// ...\n\n",
	// Scripts and marks.
	"日本語のテキストと漢字、カタカナ。中文字符串，标点符号！한국어 문장입니다.",
	"العربية نص مع تشكيل: كَتَبَ الطَّالِبُ الدَّرْسَ ١٢٣",
	"हिन्दी में लिखा गया पाठ, संयुक्ताक्षर क्ष त्र ज्ञ और मात्राएँ ि ी ु ू",
	"Ελληνικά ΚΕΦΑΛΑΙΑ και μικρά, Кириллица Заглавные И строчные, עברית",
	"e\u0301 a\u0308 n\u0303 \u0301\u0301abc A\u030AB \u0300X x\u20DD",
	"ǅungla ǈ ǋ ᾈ ᾼ ﬁ ﬂ ʰʲ ˢ ᵃ ᴬ ⁱ ª º",
	// Emoji, ZWJ sequences, flags, skin tones, variation selectors.
	"Hello, 世界! 🌍 👨‍👩‍👧‍👦 👩🏽‍💻 🏳️‍🌈 🇫🇷🇯🇵 ❤️ ✔︎ 1️⃣ #️⃣",
	// Special tokens count as text.
	"<|endoftext|> <|endofprompt|> <|fim_prefix|>",
	// Invalid UTF-8.
	"ok \xc3\x28 bad \xe2\x82 seq \xff\xfe\xfd",
	"\x80abc\xbfdef\xc0\xafgh",
	"\xed\xa0\x80 surrogate \xf4\x90\x80\x80 too big",
	"I\xff'm\xff 's\xff 12\xff3",
	// Control and odd characters.
	"\x00\x01\x02\x7f \u200b\u200c\u200d\ufeff \u0085 \u2028 \u2029 \u000b\u000c",
}

// longFragments are very long words and runs, which take the heap merge
// (from longPiece bytes) and the split loops' long runs; tiktoken-go's
// quadratic merge bounds their length here.
func longFragments() []string {
	return []string{
		strings.Repeat("a", 1000),
		strings.Repeat("ab", 400),
		strings.Repeat("Xy", 300),
		strings.Repeat("日本", 150),
		strings.Repeat("😀", 200),
		strings.Repeat(" ", 2000) + "x",
		strings.Repeat("\r\n", 500),
		strings.Repeat("!?", 400),
		strings.Repeat("9", 1000),
		"pneumonoultramicroscopicsilicovolcanoconiosis" + strings.Repeat("ness", 100),
		strings.Repeat("\xff", 300),
	}
}

// differentialCorpus returns the fragments, joins of each with itself, the
// next and two random others (so fragments' ends meet others' starts),
// random mixes of them and random strings of soupRunes.
func differentialCorpus() []string {
	texts := append([]string{}, corpusFragments...)
	texts = append(texts, longFragments()...)
	rng := rand.New(rand.NewPCG(17, 15))
	for i, a := range corpusFragments {
		for _, j := range []int{i, i + 1, rng.IntN(len(corpusFragments)), rng.IntN(len(corpusFragments))} {
			texts = append(texts, a+corpusFragments[j%len(corpusFragments)])
		}
	}
	for range 300 {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			f := corpusFragments[rng.IntN(len(corpusFragments))]
			lo := rng.IntN(len(f))
			hi := lo + rng.IntN(len(f)-lo+1)
			b.WriteString(f[lo:hi]) // may cut runes: more invalid UTF-8
		}
		texts = append(texts, b.String())
	}
	return append(texts, runeSoup(rng, 2000)...)
}

// soupRunes are runes of the classes the patterns tell apart: upper, lower,
// title-case and modifier letters, other letters, marks, digits and other
// numbers, the apostrophe and contraction letters, spaces, newlines, '/',
// punctuation, symbols and U+FFFD.
var soupRunes = []rune("aAsStTdDmMlLrReEvVǅᾈʰªé日ا\u0301\u0308\u093f\u200d09٣½²Ⅻ' \u00a0\u3000\t\r\n\v/.!-_\"😀\ufffd")

// runeSoup returns n short random strings of soupRunes.
func runeSoup(rng *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		r := make([]rune, 1+rng.IntN(16))
		for j := range r {
			r[j] = soupRunes[rng.IntN(len(soupRunes))]
		}
		out[i] = string(r)
	}
	return out
}

func TestCountMatchesTiktoken(t *testing.T) {
	for _, text := range differentialCorpus() {
		checkCounts(t, text)
	}
}

// TestCountMatchesTiktokenPerRune places every rune class boundary of
// Unicode in the contexts the patterns distinguish (after a letter, an
// upper-case letter, a space, an apostrophe, a digit, and before each).
func TestCountMatchesTiktokenPerRune(t *testing.T) {
	runes := sampleRunes()
	const perText = 64
	for i := 0; i < len(runes); i += perText {
		var b strings.Builder
		for _, r := range runes[i:min(i+perText, len(runes))] {
			fmt.Fprintf(&b, "a%cb A%cB %c '%c 1%c2 %c's %c\n%c ", r, r, r, r, r, r, r, r)
		}
		checkCounts(t, b.String())
	}
}

// sampleRunes returns the first and last rune of every range of the unicode
// tables the classes use, plus the apostrophe's case-folding candidates.
func sampleRunes() []rune {
	seen := map[rune]bool{}
	var out []rune
	add := func(r rune) {
		if utf8.ValidRune(r) && !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	for _, tab := range []*unicode.RangeTable{
		unicode.Lu, unicode.Ll, unicode.Lt, unicode.Lm, unicode.Lo,
		unicode.M, unicode.N, unicode.White_Space, unicode.P, unicode.S, unicode.C,
	} {
		for _, r16 := range tab.R16 {
			add(rune(r16.Lo))
			add(rune(r16.Hi))
		}
		for _, r32 := range tab.R32 {
			add(rune(r32.Lo))
			add(rune(r32.Hi))
		}
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if unicode.ToLower(r) < utf8.RuneSelf && r >= utf8.RuneSelf {
			add(r) // folds to ASCII under (?i): 'İ' and the Kelvin sign
		}
	}
	return out
}

// TestClassesMatchRegexp2 checks the rune classes the split functions use
// against regexp2's own character classes, on every rune up to U+3000 and
// on the range ends of the unicode tables.
func TestClassesMatchRegexp2(t *testing.T) {
	classes := map[uint8]*regexp2.Regexp{
		cL:     regexp2.MustCompile(`^\p{L}$`, regexp2.None),
		cN:     regexp2.MustCompile(`^\p{N}$`, regexp2.None),
		cS:     regexp2.MustCompile(`^\s$`, regexp2.None),
		cCRLF:  regexp2.MustCompile(`^[\r\n]$`, regexp2.None),
		cUpper: regexp2.MustCompile(`^[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]$`, regexp2.None),
		cLower: regexp2.MustCompile(`^[\p{Ll}\p{Lm}\p{Lo}\p{M}]$`, regexp2.None),
	}
	runes := sampleRunes()
	for r := rune(0); r < 0x3000; r++ {
		runes = append(runes, r)
	}
	classesOnce.Do(loadClasses)
	for _, r := range runes {
		if !utf8.ValidRune(r) {
			continue
		}
		got := classOf(r)
		for bit, re := range classes {
			want, err := re.MatchString(string(r))
			if err != nil {
				t.Fatal(err)
			}
			if (got&bit != 0) != want {
				t.Errorf("rune %U: class %b is %v, regexp2 says %v", r, bit, got&bit != 0, want)
			}
		}
	}
}

// FuzzCountMatchesTiktoken checks Count against tiktoken-go on arbitrary
// bytes; its seed corpus (the fragments) runs with go test. Inputs are cut
// to 1 KiB: tiktoken-go's merge is quadratic in a piece's length (a 4 KiB
// run of invalid bytes made the fuzzer's worker time out), and the longer
// pieces are the corpus's and TestHeapMergeMatchesScan's.
func FuzzCountMatchesTiktoken(f *testing.F) {
	for _, s := range corpusFragments {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkCounts(t, text[:min(len(text), 1024)])
	})
}
