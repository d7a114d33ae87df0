package core_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
)

// promptTags returns the message tags of the prompt's non-system messages
// and whether any system message holds observation text of tag.
func promptTags(prompt []core.Message) (tags []string, observedText string) {
	var sys strings.Builder
	for _, msg := range prompt {
		if msg.Role == core.RoleSystem {
			sys.WriteString(msg.Text())
			continue
		}
		tags = append(tags, tagRE.FindAllString(msg.Text(), -1)...)
	}
	return tags, sys.String()
}

// beginLoop begins turn i of thread t and returns it with a produced tool
// call and a result of about n bytes tagged with the turn's answer tag.
func beginLoop(t *testing.T, m *core.Memory, i, n int) (*core.Turn, []core.Message) {
	t.Helper()
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", System: []string{"You are helpful."},
		Input: []core.Message{core.NewMessage(core.RoleUser, fmt.Sprintf("m%du: question number %d", i, i))}})
	if err != nil {
		t.Fatal(err)
	}
	result := fmt.Sprintf("m%da: %s", i, strings.Repeat("tool output ", n/12))
	return turn, []core.Message{callMsg(fmt.Sprint("call", i)), resultMsg(fmt.Sprint("call", i), result)}
}

// Mastra: "should activate buffered observations mid-step when threshold is
// crossed (not defer to next user turn)" (packages/memory/src/processors/
// observational-memory/__tests__/mid-loop-observation.test.ts): the stored
// messages stay under MessageTokens, a tool result of the running loop
// takes the turn over it, and the step activates the buffered chunks with
// every observer call held (none on the step's path); the step's prompt
// shows their observations instead of the messages they cover, and the
// tool result stays whole. Every message is observed once in the end.
func TestStepActivatesBufferedObservations(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		g := &gate{}
		obs := &observerModel{hook: func(ctx context.Context, _ int64) error { return g.wait(ctx) }}
		m := newMem(t, s, bufferedConfig(obs, &reflectorModel{}, 500, 100000, 0.2, 5))
		i := 0
		for ; len(record(t, m, "t").Buffer.Chunks) == 0 || i < 4; i++ {
			observedTurn(t, m, "t", "r", i)
			core.WaitBackground(m)
		}
		before := record(t, m, "t")
		if pending, _ := pendingTokens(t, s, before, "t"); pending >= 500 {
			t.Fatalf("%d tokens pending before the loop: the test needs them under MessageTokens", pending)
		}
		turn, produced := beginLoop(t, m, i, 600)
		g.close()
		prompt, err := turn.Step(ctx, produced)
		if err != nil {
			t.Fatal(err)
		}
		after := record(t, m, "t")
		if after.Observations == before.Observations || len(after.Buffer.Chunks) >= len(before.Buffer.Chunks) {
			t.Fatalf("the step activated nothing: %d chunks before, %d after", len(before.Buffer.Chunks), len(after.Buffer.Chunks))
		}
		tags, sys := promptTags(prompt)
		for _, chunk := range before.Buffer.Chunks[:len(before.Buffer.Chunks)-len(after.Buffer.Chunks)] {
			if !strings.Contains(sys, chunk.Observations) {
				t.Fatalf("the step's prompt lacks the activated observations %q", chunk.Observations)
			}
		}
		for _, tag := range tags {
			if strings.Contains(sys, "saw "+tag+"\n") && tag != fmt.Sprintf("m%da", i) {
				t.Fatalf("%s is both observed and in the prompt", tag)
			}
		}
		if got := toolResults(prompt)[fmt.Sprint("call", i)]; !strings.Contains(got, fmt.Sprintf("m%da", i)) {
			t.Fatalf("the tool result is not whole in the step's prompt: %.40q", got)
		}
		if !slices.Contains(tags, fmt.Sprintf("m%du", i)) {
			t.Fatalf("the turn's input left the step's prompt: %v", tags)
		}
		g.open()
		if err := turn.Commit(ctx, produced); err != nil {
			t.Fatal(err)
		}
		core.WaitBackground(m)
		if _, err := m.ObserveNow(ctx, "t", "r", nil); err != nil {
			t.Fatal(err)
		}
		obs.requireOnce(t)
		if n := obs.observed()[fmt.Sprintf("m%da", i)]; n != 1 {
			t.Fatalf("the loop's tool result was observed %d times", n)
		}
	})
}

// Mastra: "should trigger observation on step N > 0 when threshold is
// exceeded" (mid-loop-observation.test.ts). Without buffering, a step whose
// messages take the turn past MessageTokens saves them and observes the
// unobserved messages then and there, the loop's own included (as Mastra,
// which saves at every step); the step's prompt shows the new observations
// in place of the remembered messages and keeps the turn's input and tool
// result whole. Commit observes none of them again.
func TestStepObservesPastThreshold(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		obs := &observerModel{}
		m := newMem(t, s, observationConfig(obs, &reflectorModel{}, 500, 100000))
		const turns = 4
		for i := 0; i < turns; i++ {
			observedTurn(t, m, "t", "r", i)
		}
		if obs.calls.Load() != 0 {
			t.Fatalf("observed before the loop: %d calls", obs.calls.Load())
		}
		turn, produced := beginLoop(t, m, turns, 600)
		prompt, err := turn.Step(ctx, produced)
		if err != nil {
			t.Fatal(err)
		}
		if obs.calls.Load() != 1 {
			t.Fatalf("%d observer calls at the step, want 1", obs.calls.Load())
		}
		seen := obs.observed()
		tags, sys := promptTags(prompt)
		for i := 0; i < turns; i++ {
			for _, tag := range []string{fmt.Sprintf("m%du", i), fmt.Sprintf("m%da", i)} {
				if seen[tag] != 1 || slices.Contains(tags, tag) || !strings.Contains(sys, "saw "+tag) {
					t.Fatalf("%s: observed %d times, in the prompt %v, in its observations %v", tag, seen[tag], slices.Contains(tags, tag), strings.Contains(sys, "saw "+tag))
				}
			}
		}
		input, result := fmt.Sprintf("m%du", turns), fmt.Sprintf("m%da", turns)
		inPrompt := map[string]bool{input: slices.Contains(tags, input), result: strings.Contains(toolResults(prompt)[fmt.Sprint("call", turns)], result)}
		for _, tag := range []string{input, result} {
			if seen[tag] != 1 || !inPrompt[tag] {
				t.Fatalf("%s (stored by the step): observed %d times, in the prompt %v", tag, seen[tag], inPrompt[tag])
			}
		}
		if err := turn.Commit(ctx, produced); err != nil {
			t.Fatal(err)
		}
		if _, err := m.ObserveNow(ctx, "t", "r", nil); err != nil {
			t.Fatal(err)
		}
		obs.requireOnce(t)
		if n := obs.observed()[fmt.Sprintf("m%da", turns)]; n != 1 {
			t.Fatalf("the loop's tool result was observed %d times", n)
		}
	})
}

// Mastra: "should trigger observation on step 0 when threshold exceeded"
// (mid-loop-observation.test.ts): stored messages already past
// MessageTokens (written while the threshold was higher) are observed at
// the first step, before the loop's first model call, not only after the
// turn's Commit.
func TestStepObservesAtFirstStep(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		obs := &observerModel{}
		high := newMem(t, s, observationConfig(obs, &reflectorModel{}, 100000, 100000))
		for i := 0; i < 6; i++ {
			observedTurn(t, high, "t", "r", i)
		}
		m := newMem(t, s, observationConfig(obs, &reflectorModel{}, 200, 100000))
		turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{core.NewMessage(core.RoleUser, "m6u: next question")}})
		if err != nil {
			t.Fatal(err)
		}
		if tags, _ := promptTags(turn.Messages()); !slices.Contains(tags, "m0u") || obs.calls.Load() != 0 {
			t.Fatalf("Begin observed already (%d calls) or lacks the history: %v", obs.calls.Load(), tags)
		}
		prompt, err := turn.Step(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		tags, sys := promptTags(prompt)
		if obs.calls.Load() != 1 || slices.Contains(tags, "m0u") || !strings.Contains(sys, "saw m5a") || !slices.Contains(tags, "m6u") {
			t.Fatalf("after the first step: %d observer calls, prompt tags %v", obs.calls.Load(), tags)
		}
		if rec := record(t, m, "t"); !strings.Contains(rec.Observations, "saw m0u") {
			t.Fatalf("observations not stored: %q", rec.Observations)
		}
	})
}
