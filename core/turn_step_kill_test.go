package core_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/sqlite"
)

// Environment of the agent-loop process that is killed mid-loop.
const (
	loopEnvDB    = "AGENTMEM_LOOP_TEST_DB"
	loopEnvSteps = "AGENTMEM_LOOP_TEST_STEPS"
)

// loopInput is the user message the killed turn and its retry start with,
// with the id the client gave it.
func loopInput() core.Message {
	in := core.NewMessage(core.RoleUser, "research the parcel")
	in.ID = "q1"
	return in
}

// loopProduced is what a 20-step tool loop produced after n steps: n calls,
// each with its result.
func loopProduced(n int) []core.Message {
	var out []core.Message
	for i := range n {
		id := fmt.Sprint("c", i)
		out = append(out, callMsg(id), resultMsg(id, fmt.Sprintf("result %d of the search", i)))
	}
	return out
}

// TestStepLoopProcess is the process the kill test starts: it runs a tool
// loop on SQLite and stops for good once the step after the number of tool
// results named in the environment returned, with a parallel call whose
// result never came (an orphan). Run directly, it does nothing.
func TestStepLoopProcess(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv(loopEnvSteps))
	if err != nil {
		return
	}
	s, err := sqlite.Open(ctx, os.Getenv(loopEnvDB))
	if err != nil {
		t.Fatal(err)
	}
	m := newMem(t, s, core.Config{LastMessages: core.AllMessages})
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "loop", ResourceID: "r", Input: []core.Message{loopInput()}})
	if err != nil {
		t.Fatal(err)
	}
	for step := 0; step < 20; step++ {
		produced := loopProduced(step)
		if step == n {
			produced = append(produced, callMsg("orphan"))
		}
		if _, err := turn.Step(ctx, produced); err != nil {
			t.Fatal(err)
		}
		if step == n {
			fmt.Println("AT " + strconv.Itoa(n))
			select {} // the parent kills the process here
		}
	}
	fmt.Fprintln(os.Stderr, "the loop ended before its kill point")
	os.Exit(3)
}

// Mastra saves at every step: a process killed mid-loop after n tool
// results keeps the turn's input and those n calls with their results,
// each stored once; a new process retrying the turn (the same input, with
// its client id) Begins on the thread with them as history, in order, every
// call in the prompt with its result and the orphan call left out, and its
// Commit adds only its own messages (SQLite, a real subprocess killed).
func TestStepLoopSurvivesKill(t *testing.T) {
	for _, n := range []int{1, 15} {
		t.Run(strconv.Itoa(n), func(t *testing.T) { testStepLoopKilledAfter(t, n) })
	}
}

func testStepLoopKilledAfter(t *testing.T, n int) {
	dbPath := filepath.Join(t.TempDir(), "memory.db")
	killAt(t, "TestStepLoopProcess", strconv.Itoa(n), loopEnvDB+"="+dbPath, loopEnvSteps+"="+strconv.Itoa(n))

	s, err := sqlite.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	var want []string
	for i := range n {
		want = append(want, fmt.Sprint("c", i), fmt.Sprint("r:c", i))
	}
	saved := strings.Join(append([]string{"research"}, want...), " ")
	if got := threadTags(t, s, "loop"); got != saved+" orphan" {
		t.Fatalf("stored after the kill: %s\nwant %s orphan", got, saved)
	}

	m := newMem(t, s, core.Config{LastMessages: core.AllMessages})
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "loop", ResourceID: "r", Input: []core.Message{loopInput()}})
	if err != nil {
		t.Fatal(err)
	}
	if got := loopTags(conv(turn.Messages())); got != saved {
		t.Fatalf("the retried turn's prompt: %s\nwant %s", got, saved)
	}
	requirePaired(t, turn.Messages())
	if err := turn.Commit(ctx, []core.Message{core.NewMessage(core.RoleAssistant, "found it")}); err != nil {
		t.Fatal(err)
	}
	if got := threadTags(t, s, "loop"); got != saved+" orphan found" {
		t.Fatalf("stored after the retried turn: %s", got)
	}
}

// threadTags is loopTags of a thread's stored messages.
func threadTags(t *testing.T, s store.Store, thread string) string {
	t.Helper()
	page, err := s.ListMessages(ctx, store.MessageQuery{ThreadID: thread, PerPage: store.PerPageAll})
	if err != nil {
		t.Fatal(err)
	}
	return loopTags(page.Messages)
}

// requirePaired fails unless every tool call in prompt has its result there.
func requirePaired(t *testing.T, prompt []core.Message) {
	t.Helper()
	calls, results := map[string]bool{}, toolResults(prompt)
	for _, msg := range prompt {
		for _, p := range msg.Content.Parts {
			if ti := p.ToolInvocation; ti != nil && ti.State == message.ToolStateCall {
				calls[ti.ToolCallID] = true
			}
		}
	}
	for id := range calls {
		if _, ok := results[id]; !ok {
			t.Fatalf("call %s without its result in the prompt", id)
		}
	}
}
