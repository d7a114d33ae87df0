package main

import (
	"bytes"
	"context"
	"testing"
)

// TestPicture: the turn records the operations the picture shows, and the
// picture draws each of them.
func TestPicture(t *testing.T) {
	spans, err := record(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	svg, err := waterfall(spans)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"agent", "agentmem.Begin", "agentmem.recall", "agentmem.Step", "agentmem.Commit",
		"agentmem.observe  (new trace, linked)", "chat observer", "GetThread"} {
		if !bytes.Contains(svg, []byte(">"+name+"<")) {
			t.Errorf("the picture lacks %q", name)
		}
	}
}
