package core_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// Over many random turns (tool groups, varying sizes, count caps), a prompt
// whose protected part fits the trim target never exceeds MaxTokens, and no
// tool call/result pair is split.
func TestBudgetProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 40 {
		s := memstore.New()
		maxTok := 300 + r.IntN(700)
		cfg := core.Config{MessageHistory: &core.MessageHistory{MaxTokens: maxTok}}
		if r.IntN(3) == 0 {
			cfg.LastMessages = core.LastN(2 + r.IntN(8))
		}
		m := newMem(t, s, cfg)
		sys := text("sys", 20+r.IntN(40))
		for turnN := range 25 {
			in := core.NewMessage(core.RoleUser, text(fmt.Sprint("u", turnN), 10+r.IntN(60)))
			turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", System: []string{sys}, Input: []core.Message{in}})
			if err != nil {
				t.Fatal(err)
			}
			p := turn.Messages()
			protected := 0
			for _, msg := range p {
				if msg.Source != core.SourceMemory {
					protected += msg.Tokens
				}
			}
			if got := budget.PromptTokens(p); protected+3 <= maxTok*3/4 && got > maxTok {
				t.Fatalf("trial %d turn %d: prompt %d tokens > max %d (protected %d)", trial, turnN, got, maxTok, protected)
			}
			calls, results := map[string]bool{}, map[string]bool{}
			for _, msg := range p {
				for _, part := range msg.Content.Parts {
					if ti := part.ToolInvocation; ti != nil {
						if ti.State == message.ToolStateResult {
							results[ti.ToolCallID] = true
						} else {
							calls[ti.ToolCallID] = true
						}
					}
				}
			}
			for id := range results {
				if !calls[id] {
					t.Fatalf("trial %d turn %d: result %s without its call row", trial, turnN, id)
				}
			}
			var resp []core.Message
			if r.IntN(2) == 0 {
				id := fmt.Sprintf("c%d", turnN)
				c := toolMsg("", "", "", id, message.ToolStateCall, time.Time{})
				res := toolMsg("", "", "", id, message.ToolStateResult, time.Time{})
				c.ThreadID, res.ThreadID = "", ""
				resp = append(resp, c, res)
			}
			resp = append(resp, core.NewMessage(core.RoleAssistant, text(fmt.Sprint("a", turnN), 10+r.IntN(120))))
			if err := turn.Commit(ctx, resp); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// A system message in the input is counted in the budget: the prompt does not
// exceed MaxTokens while remembered messages could still be dropped.
func TestSystemInputCounted(t *testing.T) {
	s := memstore.New()
	m := newMem(t, s, core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 300, AtMaxRemoveTokens: core.Int(0)}})
	for i := range 3 {
		turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{core.NewMessage(core.RoleUser, text(fmt.Sprint("u", i), 50))}})
		if err != nil {
			t.Fatal(err)
		}
		if err := turn.Commit(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	sys := core.NewMessage(core.RoleSystem, text("sys", 150))
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{sys, core.NewMessage(core.RoleUser, text("now", 20))}})
	if err != nil {
		t.Fatal(err)
	}
	p := turn.Messages()
	var sum int
	for _, msg := range p {
		sum += len(msg.Text()) + 3
	}
	if sum+3 > 300 {
		t.Fatalf("prompt is %d tokens, max 300: %v", sum+3, ids(p))
	}
}
