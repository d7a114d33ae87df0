package eino_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"testing/quick"

	"github.com/cloudwego/eino/schema"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/message"
	einomem "github.com/agentmem/agentmem/eino"
)

// conversation is a generated, well-formed eino conversation: every tool
// message follows the assistant message that made its call.
type conversation []*schema.Message

func (conversation) Generate(r *rand.Rand, size int) reflect.Value {
	n := 1 + r.Intn(6)
	var msgs conversation
	for i := 0; i < n; i++ {
		switch r.Intn(5) {
		case 0:
			msgs = append(msgs, genUser(r))
		case 1:
			msgs = append(msgs, genSystem(r))
		default:
			a := genAssistant(r, i)
			msgs = append(msgs, a)
			for j, tc := range a.ToolCalls {
				if r.Intn(5) == 0 {
					continue // a call without result
				}
				msgs = append(msgs, genTool(r, tc, i, j))
			}
		}
	}
	return reflect.ValueOf(msgs)
}

var words = []string{"", "a", "hello", "wörld", "<b>&</b>", "line\nbreak", `"quoted"`, "🙂", " spaced ", "{not json", `{"k": 1}`, `{"k":1}`, "[1,2]"}

func genText(r *rand.Rand) string {
	var parts []string
	for i := r.Intn(3); i > 0; i-- {
		parts = append(parts, words[r.Intn(len(words))])
	}
	return strings.Join(parts, " ")
}

func genNonEmpty(r *rand.Rand) string {
	if s := genText(r); s != "" {
		return s
	}
	return "x"
}

// genJSONValue returns a value as encoding/json decodes it.
func genJSONValue(r *rand.Rand, depth int) any {
	switch k := r.Intn(7); {
	case k == 0:
		return nil
	case k == 1:
		return r.Intn(2) == 0
	case k == 2:
		return float64(r.Intn(2000)-1000) / 8
	case k == 3 && depth < 2:
		m := map[string]any{}
		for i := r.Intn(3); i > 0; i-- {
			m[genNonEmpty(r)] = genJSONValue(r, depth+1)
		}
		return m
	case k == 4 && depth < 2:
		var l []any
		for i := 1 + r.Intn(2); i > 0; i-- {
			l = append(l, genJSONValue(r, depth+1))
		}
		return l
	}
	return genText(r)
}

func genExtra(r *rand.Rand) map[string]any {
	if r.Intn(3) != 0 {
		return nil
	}
	m := map[string]any{}
	for i := 1 + r.Intn(2); i > 0; i-- {
		m["k"+genNonEmpty(r)] = genJSONValue(r, 0)
	}
	return m
}

func maybe(r *rand.Rand, s string) *string {
	if r.Intn(2) == 0 {
		return nil
	}
	return &s
}

func genCommon(r *rand.Rand) schema.MessagePartCommon {
	c := schema.MessagePartCommon{URL: maybe(r, "https://example.com/"+genNonEmpty(r)), Base64Data: maybe(r, "aGVsbG8=")}
	if r.Intn(2) == 0 {
		c.MIMEType = []string{"image/png", "audio/wav", "video/mp4", "application/pdf"}[r.Intn(4)]
	}
	c.Extra = genExtra(r)
	return c
}

func genInputPart(r *rand.Rand) schema.MessageInputPart {
	p := schema.MessageInputPart{Extra: genExtra(r)}
	switch r.Intn(6) {
	case 0:
		p.Type, p.Text = schema.ChatMessagePartTypeText, genText(r)
	case 1:
		p.Type, p.Image = schema.ChatMessagePartTypeImageURL, &schema.MessageInputImage{MessagePartCommon: genCommon(r), Detail: schema.ImageURLDetailHigh}
	case 2:
		p.Type, p.Audio = schema.ChatMessagePartTypeAudioURL, &schema.MessageInputAudio{MessagePartCommon: genCommon(r)}
	case 3:
		p.Type, p.Video = schema.ChatMessagePartTypeVideoURL, &schema.MessageInputVideo{MessagePartCommon: genCommon(r)}
	case 4:
		p.Type, p.File = schema.ChatMessagePartTypeFileURL, &schema.MessageInputFile{MessagePartCommon: genCommon(r), Name: genText(r)}
	default:
		p.Type, p.ToolSearchResult = schema.ChatMessagePartTypeToolSearchResult, &schema.ToolSearchResult{}
	}
	return p
}

func genOutputPart(r *rand.Rand) schema.MessageOutputPart {
	p := schema.MessageOutputPart{Extra: genExtra(r)}
	switch r.Intn(6) {
	case 0:
		p.Type, p.Text = schema.ChatMessagePartTypeText, genText(r)
	case 4:
		p.Type, p.Video = schema.ChatMessagePartTypeVideoURL, &schema.MessageOutputVideo{MessagePartCommon: genCommon(r)}
	case 5:
		p.Type = "future_type" // unknown to this package: kept whole
	case 1:
		p.Type, p.Reasoning = schema.ChatMessagePartTypeReasoning, &schema.MessageOutputReasoning{Text: genText(r), Signature: *orEmpty(maybe(r, "sig=="))}
	case 2:
		p.Type, p.Image = schema.ChatMessagePartTypeImageURL, &schema.MessageOutputImage{MessagePartCommon: genCommon(r)}
	default:
		p.Type, p.Audio = schema.ChatMessagePartTypeAudioURL, &schema.MessageOutputAudio{MessagePartCommon: genCommon(r)}
	}
	return p
}

func orEmpty(s *string) *string {
	if s == nil {
		e := ""
		return &e
	}
	return s
}

func genLegacyPart(r *rand.Rand) schema.ChatMessagePart {
	p := schema.ChatMessagePart{}
	switch r.Intn(5) {
	case 0:
		p.Type, p.Text = schema.ChatMessagePartTypeText, genText(r)
	case 3:
		p.Type, p.AudioURL = schema.ChatMessagePartTypeAudioURL, &schema.ChatMessageAudioURL{URI: genText(r), MIMEType: "audio/wav", Extra: genExtra(r)}
	case 4:
		p.Type, p.VideoURL = schema.ChatMessagePartTypeVideoURL, &schema.ChatMessageVideoURL{URL: genText(r)}
	case 1:
		p.Type, p.ImageURL = schema.ChatMessagePartTypeImageURL, &schema.ChatMessageImageURL{URL: genText(r), URI: genText(r), Detail: schema.ImageURLDetailLow, MIMEType: "image/jpeg", Extra: genExtra(r)}
	default:
		p.Type, p.FileURL = schema.ChatMessagePartTypeFileURL, &schema.ChatMessageFileURL{URL: genText(r), Name: genText(r), Extra: genExtra(r)}
	}
	return p
}

func genCommonFields(r *rand.Rand, m *schema.Message) {
	m.Content = genText(r)
	if r.Intn(3) == 0 {
		m.Name = genNonEmpty(r)
	}
	m.Extra = genExtra(r)
	if r.Intn(6) == 0 {
		m.MultiContent = []schema.ChatMessagePart{genLegacyPart(r)}
	}
}

func genUser(r *rand.Rand) *schema.Message {
	m := &schema.Message{Role: schema.User}
	genCommonFields(r, m)
	for i := r.Intn(3); i > 0 && r.Intn(2) == 0; i-- {
		m.UserInputMultiContent = append(m.UserInputMultiContent, genInputPart(r))
	}
	return m
}

func genSystem(r *rand.Rand) *schema.Message {
	m := &schema.Message{Role: schema.System}
	genCommonFields(r, m)
	return m
}

func genAssistant(r *rand.Rand, pos int) *schema.Message {
	m := &schema.Message{Role: schema.Assistant}
	genCommonFields(r, m)
	if r.Intn(2) == 0 {
		m.ReasoningContent = genText(r)
	}
	for i := r.Intn(3); i > 0 && r.Intn(2) == 0; i-- {
		m.AssistantGenMultiContent = append(m.AssistantGenMultiContent, genOutputPart(r))
	}
	if r.Intn(2) == 0 {
		m.ResponseMeta = &schema.ResponseMeta{FinishReason: "stop", Usage: &schema.TokenUsage{PromptTokens: r.Intn(100), CompletionTokens: r.Intn(100), TotalTokens: r.Intn(200),
			PromptTokenDetails: schema.PromptTokenDetails{CachedTokens: r.Intn(5)}, CompletionTokensDetails: schema.CompletionTokensDetails{ReasoningTokens: r.Intn(5)}}}
		if r.Intn(3) == 0 {
			m.ResponseMeta.LogProbs = &schema.LogProbs{Content: []schema.LogProb{{Token: "a", LogProb: -0.5, Bytes: []int64{97},
				TopLogProbs: []schema.TopLogProb{{Token: "b", LogProb: -1.25}}}}}
		}
	}
	for i := r.Intn(4); i > 0; i-- {
		tc := schema.ToolCall{ID: fmt.Sprintf("call_%d_%d", pos, i), Type: "function",
			Function: schema.FunctionCall{Name: "tool" + fmt.Sprint(r.Intn(3)), Arguments: genArgs(r)}, Extra: genExtra(r)}
		switch r.Intn(8) {
		case 0:
			idx := i
			tc.Index = &idx
		case 1:
			tc.Type = ""
		case 2:
			tc.ID = ""
		case 3:
			tc.Function.Name = ""
		}
		m.ToolCalls = append(m.ToolCalls, tc)
	}
	return m
}

func genArgs(r *rand.Rand) string {
	return []string{"", "{}", `{"city":"Paris"}`, `{ "city" : "Paris" }`, `{"html":"<b>"}`, "{partial", `"str"`, `[1,2,3]`}[r.Intn(8)]
}

func genTool(r *rand.Rand, tc schema.ToolCall, pos, j int) *schema.Message {
	m := &schema.Message{Role: schema.Tool, ToolCallID: tc.ID, ToolName: tc.Function.Name}
	m.Content = []string{genText(r), `{"temp":21}`, `{ "temp": 21 }`, `"quoted"`, "42", "", `[{"a":"<x>"}]`}[r.Intn(7)]
	if r.Intn(4) == 0 {
		m.ToolName = "" // recovered from the call
	}
	if r.Intn(4) == 0 {
		m.UserInputMultiContent = []schema.MessageInputPart{genInputPart(r)}
	}
	m.Extra = genExtra(r)
	return m
}

// storeRoundTrip encodes and decodes messages as a store does.
func storeRoundTrip(t *testing.T, msgs []core.Message) []core.Message {
	t.Helper()
	b, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	var out []core.Message
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func dump(v any) string {
	b, _ := json.MarshalIndent(v, "", " ")
	return string(b)
}

// TestRoundTripProperty: eino → core → (JSON storage) → eino is the identity,
// and every converted message is valid format 2.
func TestRoundTripProperty(t *testing.T) {
	mem := newMemory(t, nil, core.Config{})
	check := func(c conversation) bool {
		in := []*schema.Message(c)
		cm, err := einomem.FromEino(in)
		if err != nil {
			t.Logf("FromEino: %v", err)
			return false
		}
		for _, m := range cm {
			if m.Role == core.RoleSystem {
				continue
			}
			m.ThreadID, m.ResourceID = "t", "r"
			if _, err := mem.SaveMessages(ctx, []core.Message{m}, nil); err != nil {
				t.Logf("not storable: %v\n%s", err, dump(m))
				return false
			}
		}
		for name, got := range map[string][]*schema.Message{"direct": einomem.ToEino(cm), "stored": einomem.ToEino(storeRoundTrip(t, cm))} {
			if !reflect.DeepEqual(got, in) {
				t.Logf("%s round trip differs\nin:  %s\nout: %s\ncore: %s", name, dump(in), dump(got), dump(cm))
				return false
			}
		}
		return true
	}
	if _, err := mem.CreateThread(ctx, core.ThreadInput{ID: "t", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	if err := quick.Check(check, &quick.Config{MaxCount: 2000}); err != nil {
		t.Fatal(err)
	}
}

// renameGeneratedIDs renames the tool-call ids the adapter generated for
// calls and results that had none (fresh on every conversion) to "gen<n>" in
// order of appearance, in the parts and in the adapter's metadata.
func renameGeneratedIDs(msgs []core.Message) []core.Message {
	out := cloneCore(msgs)
	names := map[string]string{}
	rename := func(id string) string {
		if !strings.HasPrefix(id, "call_") || len(id) != len("call_")+32 {
			return id
		}
		if _, ok := names[id]; !ok {
			names[id] = fmt.Sprintf("gen%d", len(names))
		}
		return names[id]
	}
	for i := range out {
		for _, p := range out[i].Content.Parts {
			if p.ToolInvocation != nil {
				p.ToolInvocation.ToolCallID = rename(p.ToolInvocation.ToolCallID)
			}
		}
		meta, _ := out[i].Content.Metadata[einomem.MetadataKey].(map[string]any)
		if calls, ok := meta["calls"].(map[string]any); ok {
			renamed := map[string]any{}
			for id, c := range calls {
				renamed[rename(id)] = c
			}
			meta["calls"] = renamed
		}
	}
	return out
}

// cloneCore deep-copies messages through their JSON form.
func cloneCore(msgs []core.Message) []core.Message {
	b, err := json.Marshal(msgs)
	if err != nil {
		panic(err)
	}
	var out []core.Message
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}

// TestCoreRoundTripProperty: core → eino → core keeps the content of messages
// in the adapter's form (the output of FromEino), ids included (the ids the
// adapter generates for id-less calls are fresh on every conversion).
func TestCoreRoundTripProperty(t *testing.T) {
	check := func(c conversation) bool {
		cm, err := einomem.FromEino(c)
		if err != nil {
			return false
		}
		for i := range cm {
			cm[i].ID = fmt.Sprintf("m%d", i)
		}
		back, err := einomem.FromEino(einomem.ToEino(cm))
		if err != nil {
			t.Log(err)
			return false
		}
		if !reflect.DeepEqual(renameGeneratedIDs(back), renameGeneratedIDs(cm)) {
			t.Logf("differs\nin:  %s\nout: %s", dump(cm), dump(back))
			return false
		}
		return true
	}
	if err := quick.Check(check, &quick.Config{MaxCount: 1000}); err != nil {
		t.Fatal(err)
	}
}

func TestToolResultBecomesAssistantResult(t *testing.T) {
	in := []*schema.Message{
		schema.UserMessage("weather?"),
		schema.AssistantMessage("", []schema.ToolCall{{ID: "c1", Type: "function", Function: schema.FunctionCall{Name: "weather", Arguments: `{"city":"Paris"}`}}}),
		{Role: schema.Tool, ToolCallID: "c1", Content: `{"temp":21}`}, // no ToolName: recovered from the call
	}
	cm, err := einomem.FromEino(in)
	if err != nil {
		t.Fatal(err)
	}
	res := cm[2]
	if res.Role != core.RoleAssistant || len(res.Content.Parts) != 1 {
		t.Fatalf("tool result = %s", dump(res))
	}
	ti := res.Content.Parts[0].ToolInvocation
	if ti.State != message.ToolStateResult || ti.ToolCallID != "c1" || ti.ToolName != "weather" || string(ti.Args) != `{"city":"Paris"}` || string(ti.Result) != `{"temp":21}` {
		t.Fatalf("tool invocation = %s", dump(ti))
	}
	call := cm[1].Content.Parts[0].ToolInvocation
	if call.State != message.ToolStateCall || call.ToolCallID != "c1" {
		t.Fatalf("call = %s", dump(call))
	}
	if got := einomem.ToEino(cm); !reflect.DeepEqual(got, in) {
		t.Fatalf("round trip:\n%s", dump(got))
	}
}

// A Mastra-style message (call and result in one part) becomes the assistant
// call followed by a tool message; a result whose call is missing gets it.
func TestToEinoForeignMessages(t *testing.T) {
	merged := core.Message{ID: "m1", Role: core.RoleAssistant, Content: core.Content{Format: 2, Parts: []core.Part{
		core.TextPart("checking"),
		{Type: core.PartToolInvocation, ToolInvocation: &message.ToolInvocation{State: message.ToolStateResult, ToolCallID: "x", ToolName: "weather", Args: json.RawMessage(`{"city":"Oslo"}`), Result: json.RawMessage(`{"temp":3}`)}},
	}}}
	got := einomem.ToEino([]core.Message{merged})
	want := []*schema.Message{
		{Role: schema.Assistant, Content: "checking", Extra: map[string]any{einomem.ExtraIDKey: "m1"},
			ToolCalls: []schema.ToolCall{{ID: "x", Type: "function", Function: schema.FunctionCall{Name: "weather", Arguments: `{"city":"Oslo"}`}}}},
		{Role: schema.Tool, ToolCallID: "x", ToolName: "weather", Content: `{"temp":3}`},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("merged:\n%s", dump(got))
	}

	// A stored tool result whose call row was not loaded.
	cm, _ := einomem.FromEino([]*schema.Message{
		schema.AssistantMessage("", []schema.ToolCall{{ID: "y", Type: "function", Function: schema.FunctionCall{Name: "f", Arguments: `{"a":1}`}}}),
		schema.ToolMessage("ok", "y", schema.WithToolName("f")),
	})
	got = einomem.ToEino(cm[1:])
	if len(got) != 2 || got[0].Role != schema.Assistant || got[0].ToolCalls[0].ID != "y" || got[0].ToolCalls[0].Function.Arguments != `{"a":1}` ||
		got[1].Role != schema.Tool || got[1].ToolCallID != "y" || got[1].Content != "ok" {
		t.Fatalf("orphan result:\n%s", dump(got))
	}
	if one := einomem.MessageToEino(cm[1]); len(one) != 1 || one[0].Role != schema.Tool {
		t.Fatalf("MessageToEino(result) = %s", dump(one))
	}
}

func TestUnknownRole(t *testing.T) {
	if _, err := einomem.MessageFromEino(&schema.Message{Role: "robot"}); err == nil {
		t.Fatal("want an error for an unknown role")
	}
}
