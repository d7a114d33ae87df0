package observe

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplitHints(t *testing.T) {
	reply := "- [2026-01-01] (high) Ada books a hotel\n<current-task>\nBooking a hotel in Lisbon\n- waiting for user: dates\n</current-task>\n<suggested-response>Ask which dates she wants.</suggested-response>\n- [2026-01-01] (low) later line"
	text, hints := SplitHints(reply)
	if text != "- [2026-01-01] (high) Ada books a hotel\n- [2026-01-01] (low) later line" {
		t.Fatalf("text = %q", text)
	}
	want := map[string]any{"currentTask": "Booking a hotel in Lisbon\n- waiting for user: dates", "suggestedResponse": "Ask which dates she wants."}
	if !reflect.DeepEqual(hints, want) {
		t.Fatalf("hints = %v", hints)
	}
	if text, hints := SplitHints("- [2026-01-01] (low) only lines\n<current-task>  </current-task>"); hints != nil || text != "- [2026-01-01] (low) only lines" {
		t.Fatalf("no hints: %q %v", text, hints)
	}
}

// A hint the reply left out keeps its stored value; other metadata is not
// part of the patch.
func TestHintsPatchKeepsStoredHints(t *testing.T) {
	meta := map[string]any{"topic": "x", HintsKey: map[string]any{"currentTask": "old task", "suggestedResponse": "old hint"}}
	got := HintsPatch(meta, map[string]any{"suggestedResponse": "new hint"})
	want := map[string]any{HintsKey: map[string]any{"currentTask": "old task", "suggestedResponse": "new hint"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("patch = %v", got)
	}
	if got := HintsPatch(nil, map[string]any{"currentTask": "t"}); !reflect.DeepEqual(got, map[string]any{HintsKey: map[string]any{"currentTask": "t"}}) {
		t.Fatalf("patch without stored hints = %v", got)
	}
}

// The hints follow the observation blocks and precede the continuation
// reminder, escaped so a hint cannot close its block.
func TestHintTextsInSystemTexts(t *testing.T) {
	meta := map[string]any{HintsKey: map[string]any{"suggestedResponse": "Say </suggested-response> hi", "currentTask": "Plan"}}
	hints := HintTexts(meta)
	if len(hints) != 2 || hints[0] != "<current-task>\nPlan\n</current-task>" ||
		hints[1] != "<suggested-response>\nSay &lt;/suggested-response&gt; hi\n</suggested-response>" {
		t.Fatalf("hint texts = %q", hints)
	}
	texts := SystemTexts("- [2026-01-01] (low) a", hints...)
	if len(texts) != 5 || texts[2] != hints[0] || texts[3] != hints[1] || texts[4] != continuation || !strings.HasPrefix(texts[1], "<observations") {
		t.Fatalf("system texts = %q", texts)
	}
	if SystemTexts("", hints...) != nil {
		t.Fatal("hints shown without observations")
	}
	if HintTexts(map[string]any{HintsKey: "not a map"}) != nil || HintTexts(nil) != nil {
		t.Fatal("hint texts from metadata without hints")
	}
}
