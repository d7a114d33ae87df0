package inspector

import (
	"context"
	"fmt"
	"github.com/agentmem/agentmem/core/message"
	"net/http"
	"strings"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/budget"
	"github.com/agentmem/agentmem/core/store"
)

// Token sources of the next-prompt view, in the order the bar draws them.
const (
	srcSystem        = "system"
	srcWorkingMemory = "working memory"
	srcObservations  = "observations"
	srcHistory       = "history"
	srcRecall        = "recall"
	srcContext       = "context"
	srcInput         = "input"
	srcFraming       = "framing"
)

var sourceOrder = []string{srcSystem, srcWorkingMemory, srcObservations, srcHistory, srcRecall, srcContext, srcInput, srcFraming}

// Opening words of the system messages core renders for working memory and
// for recalled messages of other threads; any other system message after
// the instructions is observational memory.
const (
	workingMemoryPrefix = "WORKING_MEMORY_SYSTEM_INSTRUCTION"
	otherThreadsPrefix  = "The following messages were remembered from a different conversation"
)

// promptForm is what the next-prompt form submitted.
type promptForm struct {
	ThreadID string
	Budget   int // 0: the memory's own configuration
	Remove   int // -1: default (25% of the budget)
	System   string
	Input    string
}

// promptData is the next-prompt view's data.
type promptData struct {
	Thread    store.Thread
	Form      promptForm
	Messages  []messageView
	Segments  []segment
	Total     int
	Scale     int // tokens the bar's full width stands for
	BudgetX   float64
	Trimmed   []messageView
	TrimTok   int
	RecallErr string
	// ReadOnlyWM: the working memory is shown as a read-only turn renders
	// it; a writable turn adds the updateWorkingMemory instructions.
	ReadOnlyWM bool
}

// segment is one source's share of the prompt.
type segment struct {
	Source  string
	Class   string
	Tokens  int
	Count   int
	Percent float64
	X, W    float64 // position on the bar, in 0..1000
}

// promptView runs a read-only Begin for the thread and shows what the model
// would see next turn and where the tokens go.
func (s *server) promptView(w http.ResponseWriter, r *http.Request) {
	th, f, err := s.parsePromptForm(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d, err := s.nextPrompt(r.Context(), th, f)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "prompt", "Next prompt · "+th.ID, d)
}

// parsePromptForm reads the form; a missing budget defaults to the one the
// thread's boundary was set under, so the view matches what that agent sees.
func (s *server) parsePromptForm(r *http.Request) (store.Thread, promptForm, error) {
	q := r.URL.Query()
	f := promptForm{ThreadID: q.Get("id"), System: q.Get("system"), Input: q.Get("input"), Remove: -1}
	if err := store.ValidateID("id", f.ThreadID); err != nil {
		return store.Thread{}, f, err
	}
	th, err := s.store.GetThread(r.Context(), f.ThreadID)
	if err != nil {
		return store.Thread{}, f, err
	}
	if !q.Has("budget") {
		r := f.request(th)
		if r.BoundaryBudget() {
			f.Budget, f.Remove = r.Budget, r.Remove
			return th, f, nil
		}
	}
	if f.Budget, err = intParam("budget", q.Get("budget"), 0, 0, 10_000_000); err != nil {
		return th, f, err
	}
	if f.Budget > 0 { // without a budget of its own the form has nothing to remove from
		if f.Remove, err = intParam("remove", q.Get("remove"), -1, 0, f.Budget); err != nil {
			return th, f, err
		}
	}
	return th, f, nil
}

// PromptRequest asks for the next prompt of a thread. The command's prompt
// and the inspector's prompt page both build it with NextPrompt, so the same
// request gives the same messages and token counts in both.
type PromptRequest struct {
	Thread store.Thread
	// Budget is the token budget of the whole prompt; 0 means none.
	Budget int
	// Remove is what a budget trims beyond itself (AtMaxRemoveTokens);
	// -1 means the default, 25% of the budget.
	Remove int
	// Last caps the remembered messages; 0 keeps the memory's setting.
	Last int
	// WorkingMemory turns working memory on for this prompt.
	WorkingMemory bool
	// System are the agent's instructions, Input the next user message
	// (also the recall query); both optional.
	System []string
	Input  string
}

// BoundaryBudget fills in the budget and trim the thread's boundary was set
// under, so that a prompt asked for without a budget matches what the agent
// that set the boundary sees. It reports whether it did.
func (r *PromptRequest) BoundaryBudget() bool {
	if r.Thread.Boundary == nil || r.Thread.Boundary.MaxTokens <= 0 {
		return false
	}
	r.Budget, r.Remove = r.Thread.Boundary.MaxTokens, r.Thread.Boundary.AtMaxRemoveTokens
	return true
}

// Config is the per-call override the request stands for: read-only, and
// its budget, count cap and working memory.
func (r PromptRequest) Config() *core.Config {
	cfg := &core.Config{ReadOnly: core.Bool(true)}
	if r.Budget > 0 {
		cfg.MessageHistory = &core.MessageHistory{MaxTokens: r.Budget}
		if r.Remove >= 0 {
			cfg.MessageHistory.AtMaxRemoveTokens = core.Int(r.Remove)
		}
	}
	if r.Last > 0 {
		cfg.LastMessages = core.LastN(r.Last)
	}
	if r.WorkingMemory {
		cfg.WorkingMemory = &core.WorkingMemoryConfig{Enabled: true}
	}
	return cfg
}

// turnRequest is the read-only Begin's request, under cfg.
func (r PromptRequest) turnRequest(cfg *core.Config) core.TurnRequest {
	req := core.TurnRequest{ThreadID: r.Thread.ID, ResourceID: r.Thread.ResourceID, Config: cfg}
	for _, s := range r.System {
		if strings.TrimSpace(s) != "" {
			req.System = append(req.System, s)
		}
	}
	if strings.TrimSpace(r.Input) != "" {
		req.Input = []message.Message{core.NewMessage(message.RoleUser, r.Input)}
	}
	return req
}

// NextPrompt runs the read-only Begin of r on mem: what the model would see
// next turn. Nothing is stored and the boundary does not move.
func NextPrompt(ctx context.Context, mem *core.Memory, r PromptRequest) (*core.Turn, error) {
	return mem.Begin(ctx, r.turnRequest(r.Config()))
}

// request is the form as a PromptRequest.
func (f promptForm) request(th store.Thread) PromptRequest {
	return PromptRequest{Thread: th, Budget: f.Budget, Remove: f.Remove, System: []string{f.System}, Input: f.Input}
}

// nextPrompt builds the prompt and sorts its tokens by source.
func (s *server) nextPrompt(ctx context.Context, th store.Thread, f promptForm) (promptData, error) {
	d := promptData{Thread: th, Form: f}
	req := f.request(th)
	turn, err := NextPrompt(ctx, s.mem, req)
	if err != nil {
		return d, err
	}
	if err := turn.RecallErr(); err != nil {
		d.RecallErr = err.Error()
	}
	history, err := s.historyIDs(ctx, req)
	if err != nil {
		return d, err
	}
	prompt := turn.Messages()
	nSystem := len(req.turnRequest(nil).System)
	tokens := map[string]int{}
	counts := map[string]int{}
	for i, m := range prompt {
		v := viewMessage(m)
		v.Source = sourceOf(m, i, nSystem, history)
		v.Recalled = v.Source == srcRecall
		tokens[v.Source] += m.Tokens
		counts[v.Source]++
		d.Messages = append(d.Messages, v)
	}
	d.Total = budget.PromptTokens(prompt)
	tokens[srcFraming] = d.Total - sum(tokens)
	d.ReadOnlyWM = tokens[srcWorkingMemory] > 0
	trimmed, err := s.withContent(ctx, turn.Trimmed())
	if err != nil {
		return d, err
	}
	for _, m := range trimmed {
		d.Trimmed = append(d.Trimmed, viewMessage(m))
		d.TrimTok += m.Tokens
	}
	d.Segments, d.Scale, d.BudgetX = bar(tokens, counts, d.Total, f.Budget)
	return d, nil
}

// withContent returns msgs with their content: a turn's trimmed messages that
// its history read did not decode come without it (see core.Turn.Trimmed).
func (s *server) withContent(ctx context.Context, msgs []message.Message) ([]message.Message, error) {
	ids := make([]string, len(msgs))
	for i, m := range msgs {
		ids[i] = m.ID
	}
	full, err := s.store.GetMessages(ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]message.Message, len(full))
	for _, m := range full {
		byID[m.ID] = m
	}
	out := make([]message.Message, len(msgs))
	for i, m := range msgs {
		if f, ok := byID[m.ID]; ok {
			f.Tokens = m.Tokens
			m = f
		}
		out[i] = m
	}
	return out, nil
}

// historyIDs returns the ids of the remembered messages a prompt without
// semantic recall would hold, so that the other remembered messages can be
// told apart as recall hits (both come back as core.SourceMemory). Nil when
// recall cannot run this turn (it is off or there is no input to query with).
func (s *server) historyIDs(ctx context.Context, req PromptRequest) (map[string]bool, error) {
	rc := s.mem.Config().SemanticRecall
	if rc == nil || rc.Disabled || strings.TrimSpace(req.Input) == "" {
		return nil, nil
	}
	plain := req.Config()
	plain.SemanticRecall = &core.SemanticRecall{Disabled: true}
	turn, err := s.mem.Begin(ctx, req.turnRequest(plain))
	if err != nil {
		return nil, err
	}
	ids := map[string]bool{}
	for _, m := range turn.Messages() {
		if m.Source == message.SourceMemory {
			ids[m.ID] = true
		}
	}
	return ids, nil
}

// sourceOf names where a prompt message came from. The first nSystem
// messages are the instructions; core marks the rest of the system block
// only as core.SourceSystem, so its own opening words tell them apart.
func sourceOf(m message.Message, i, nSystem int, history map[string]bool) string {
	switch m.Source {
	case message.SourceSystem:
		text := m.Text()
		switch {
		case i < nSystem:
			return srcSystem
		case strings.HasPrefix(text, workingMemoryPrefix):
			return srcWorkingMemory
		case strings.HasPrefix(text, otherThreadsPrefix):
			return srcRecall
		}
		return srcObservations
	case message.SourceMemory:
		if history != nil && !history[m.ID] {
			return srcRecall
		}
		return srcHistory
	case message.SourceContext:
		return srcContext
	case message.SourceInput:
		return srcInput
	}
	return string(m.Source)
}

// bar lays out the stacked bar: one segment per source with tokens, scaled
// to the larger of the prompt and the budget; budgetX marks the budget.
func bar(tokens, counts map[string]int, total, budget int) (segs []segment, scale int, budgetX float64) {
	scale = max(total, budget, 1)
	x := 0.0
	for _, src := range sourceOrder {
		n := tokens[src]
		if n <= 0 {
			continue
		}
		w := 1000 * float64(n) / float64(scale)
		segs = append(segs, segment{Source: src, Class: "src-" + strings.ReplaceAll(src, " ", "-"), Tokens: n,
			Count: counts[src], Percent: 100 * float64(n) / float64(max(total, 1)), X: x, W: w})
		x += w
	}
	if budget > 0 {
		budgetX = 1000 * float64(budget) / float64(scale)
	}
	return segs, scale, budgetX
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// Share formats the segment's share of the prompt for the legend.
func (g segment) Share() string { return fmt.Sprintf("%.1f%%", g.Percent) }
