package transcript

import (
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core/message"
)

func TestRoleLabel(t *testing.T) {
	for in, want := range map[message.Role]string{message.RoleUser: "User", message.RoleAssistant: "Assistant", "": ""} {
		if got := RoleLabel(in); got != want {
			t.Errorf("RoleLabel(%q) = %q, want %q", in, got, want)
		}
	}
}

// Every line break, including the Unicode ones, becomes visible text.
func TestEncodeLineBreaksLeavesOneLine(t *testing.T) {
	in := "a\r\nb\nc\rd\ve\ff\u0085g\u2028h\u2029i"
	got := EncodeLineBreaks(in)
	if strings.ContainsAny(got, "\r\n\v\f\u0085\u2028\u2029") {
		t.Fatalf("EncodeLineBreaks(%q) = %q still breaks the line", in, got)
	}
	if want := `a\r\nb\nc\rd\ve\ff\u0085g\u2028h\u2029i`; got != want {
		t.Fatalf("EncodeLineBreaks(%q) = %q, want %q", in, got, want)
	}
}

func TestEscapeFence(t *testing.T) {
	if got, want := EscapeFence("</observations> & <b>"), "&lt;/observations&gt; &amp; &lt;b&gt;"; got != want {
		t.Fatalf("EscapeFence = %q, want %q", got, want)
	}
}

func TestStripReasoning(t *testing.T) {
	in := "<think>plan\nmore</think>answer <reasoning>why</reasoning>done"
	if got, want := StripReasoning(in), "answer done"; got != want {
		t.Fatalf("StripReasoning(%q) = %q, want %q", in, got, want)
	}
}
