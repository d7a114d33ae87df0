package analysis_test

import (
	"fmt"

	"github.com/agentmem/agentmem/core/vector/analysis"
)

// The English analyzer drops stopwords and stems; a code identifier yields
// its parts and the whole. Plain only tokenizes and lowercases.
func ExampleAnalyzer_Analyze() {
	text := "Don't retry the lookupOrder calls: they're running 3.5 times slower!"
	fmt.Println(analysis.Must(analysis.English).Analyze(text))
	fmt.Println(analysis.Plain.Analyze(text))
	// Output:
	// retri lookup order lookupord call run 3.5 time slower
	// don't retry the lookup order lookuporder calls they're running 3.5 times slower
}

// New returns the analyzer of a language; its ID is what vector indexes
// record, so that a change of analyzer is detected.
func ExampleNew() {
	a, err := analysis.New(analysis.French)
	if err != nil {
		panic(err)
	}
	fmt.Println(a.ID(), a.Terms("Nous avons réservé une chambre à Paris"))
	if _, err := analysis.New("klingon"); err != nil {
		fmt.Println("error:", err)
	}
	// Output:
	// french/1 [réserv chambr paris]
	// error: analysis: unknown language "klingon" (want english, none, or a Snowball language: french, hungarian, norwegian, russian, spanish, swedish)
}
