package window

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentmem/agentmem/core/message"
)

const (
	elidedPrefix = "[result of tool "
	elidedMark   = " elided: "
)

// ElidedResult is the stub that takes the place of an elided tool result: it
// names the tool and says the result was left out of this prompt (and that
// calling the tool again gets it back), so the model neither mistakes the
// stub for the tool's answer nor loses track of which calls it made.
func ElidedResult(toolName string, tokens int) json.RawMessage {
	b, _ := json.Marshal(fmt.Sprintf(elidedPrefix+"%q"+elidedMark+"%d tokens left out of this prompt to fit the context window; call the tool again if it is needed]", toolName, tokens))
	return b
}

// IsElided reports whether ti holds an ElidedResult.
func IsElided(ti *message.ToolInvocation) bool {
	if ti == nil || ti.State != message.ToolStateResult {
		return false
	}
	var s string
	return json.Unmarshal(ti.Result, &s) == nil && strings.HasPrefix(s, elidedPrefix) && strings.Contains(s, elidedMark)
}

// ElideToolResults shortens the tool results of msgs to ElidedResult, oldest
// first, until need tokens are freed, never touching the newest keep results
// (keep < 1 counts as 1: the result the model is about to read stays whole).
// count returns the tokens of a message as its content stands. msgs is not
// modified: a message with an elided result is a copy, its Tokens recounted.
// It returns the messages and the tokens freed (less than need when the
// results that may go are not enough).
func ElideToolResults(msgs []message.Message, need, keep int, count func(*message.Message) int) ([]message.Message, int) {
	if need <= 0 {
		return msgs, 0
	}
	type loc struct{ msg, part int }
	var results []loc
	for i := range msgs {
		for j, p := range msgs[i].Content.Parts {
			if ti := p.ToolInvocation; ti != nil && ti.State == message.ToolStateResult {
				results = append(results, loc{i, j})
			}
		}
	}
	keep = max(keep, 1)
	if len(results) <= keep {
		return msgs, 0
	}
	out := msgs
	copied := map[int]bool{}
	freed := 0
	for _, r := range results[:len(results)-keep] {
		if freed >= need {
			break
		}
		orig := out[r.msg].Content.Parts[r.part].ToolInvocation
		if IsElided(orig) {
			continue
		}
		stub := *orig
		stub.Result, stub.ErrorText = ElidedResult(stub.ToolName, 0), ""
		trial := out[r.msg].Clone()
		trial.Content.Parts[r.part].ToolInvocation = &stub
		saved := out[r.msg].Tokens - count(&trial)
		if saved <= 0 {
			continue // the stub is no shorter than the result
		}
		stub.Result = ElidedResult(stub.ToolName, saved)
		trial.Tokens = count(&trial)
		if !copied[r.msg] {
			if len(copied) == 0 {
				out = append([]message.Message(nil), msgs...)
			}
			copied[r.msg] = true
		}
		freed += out[r.msg].Tokens - trial.Tokens
		out[r.msg] = trial
	}
	return out, freed
}
