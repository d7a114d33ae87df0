package analysis_test

import (
	"slices"
	"testing"

	"github.com/agentmem/agentmem/core/vector/analysis"
)

func TestTerms(t *testing.T) {
	en, none := analysis.Must(analysis.English), analysis.Must(analysis.None)
	cases := []struct {
		name string
		a    *analysis.Analyzer
		in   string
		want []string
	}{
		{"stems", en, "Running runners ran quickly", []string{"run", "runner", "ran", "quick"}},
		{"stopwords", en, "What is the carrier of my order?", []string{"carrier", "order"}},
		{"contractions are stopwords", en, "I'm sure it's fine, don't worry", []string{"sure", "fine", "worri"}},
		{"possessive", en, "Caroline's dog", []string{"carolin", "dog"}},
		{"unicode letters and accents", en, "Café naïve résumé", []string{"café", "naïv", "résumé"}},
		{"numbers", en, "Order 42 costs 3.5 dollars, 1,000 units", []string{"order", "42", "cost", "3.5", "dollar", "1,000", "unit"}},
		{"dates", en, "Arrives 2026-10-30 at 14:05", []string{"arriv", "2026", "10", "30", "14", "05"}},
		{"camelCase identifier", en, "call lookupOrder now", []string{"call", "lookup", "order", "lookupord"}},
		{"snake_case identifier", en, "the order_id field", []string{"order", "id", "order_id", "field"}},
		{"caps run", en, "HTTPServer", []string{"http", "server", "httpserver"}},
		{"CJK passes through unbroken", en, "我喜欢火车 and trains", []string{"我喜欢火车", "train"}},
		{"other scripts are not stemmed", en, "поезда trains", []string{"поезда", "train"}},
		{"punctuation separates", en, "e-mail: a@b.com!", []string{"e", "mail", "b", "com"}},
		{"none lowercases only", none, "The Running lookupOrder", []string{"the", "running", "lookup", "order", "lookuporder"}},
		{"none keeps stopwords", none, "What is it", []string{"what", "is", "it"}},
		{"empty", en, "  ,.; ", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.a.Terms(c.in); !slices.Equal(got, c.want) {
				t.Errorf("Terms(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestNew(t *testing.T) {
	a, err := analysis.New("")
	if err != nil || a.Language() != analysis.English || a.ID() != "english/1" {
		t.Fatalf("New(\"\") = %v, %v", a, err)
	}
	if _, err := analysis.New("klingon"); err == nil {
		t.Fatal("unknown language accepted")
	}
	ru := analysis.Must(analysis.Russian)
	if got := ru.Terms("красивые поезда"); len(got) != 2 || got[0] == "красивые" {
		t.Errorf("russian terms %q: not stemmed", got)
	}
	if analysis.Plain.ID() == analysis.Must(analysis.English).ID() {
		t.Error("None and English share an ID")
	}
}

func TestAnalyze(t *testing.T) {
	if got := analysis.Must(analysis.English).Analyze("The packages shipped with DHL"); got != "packag ship dhl" {
		t.Errorf("Analyze = %q", got)
	}
}
