package eino

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/cloudwego/eino/components/embedding"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/retriever"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/eino-contrib/jsonschema"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/vector"
)

// Embedder adapts an eino embedding.Embedder to vector.Embedder (semantic
// recall), converting float64 vectors to float32.
func Embedder(e embedding.Embedder) vector.Embedder { return embedder{e} }

type embedder struct{ e embedding.Embedder }

// Embed implements vector.Embedder: it embeds texts with the eino embedder, as float32 vectors.
func (e embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	vecs, err := e.e.EmbedStrings(ctx, texts)
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(vecs))
	for i, v := range vecs {
		f := make([]float32, len(v))
		for j, x := range v {
			f[j] = float32(x)
		}
		out[i] = f
	}
	return out, nil
}

// Model adapts an eino chat model to core.Model, which core uses for thread
// titles: one call with a system and a user message; the reply text is returned.
func Model(cm model.BaseChatModel) core.Model { return chatModel{cm} }

type chatModel struct{ cm model.BaseChatModel }

// Generate implements core.Model: it asks the chat model once and returns the reply text.
func (c chatModel) Generate(ctx context.Context, system, prompt string) (string, error) {
	var msgs []*schema.Message
	if system != "" {
		msgs = append(msgs, schema.SystemMessage(system))
	}
	msgs = append(msgs, schema.UserMessage(prompt))
	out, err := c.cm.Generate(ctx, msgs)
	if err != nil {
		return "", err
	}
	if out == nil {
		return "", fmt.Errorf("agentmem/eino: model returned no message")
	}
	if out.Content != "" || len(out.AssistantGenMultiContent) == 0 {
		return out.Content, nil
	}
	var b strings.Builder
	for _, p := range out.AssistantGenMultiContent {
		if p.Type == schema.ChatMessagePartTypeText {
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}

// Tool adapts a memory tool (such as updateWorkingMemory from
// core.Turn.Tools) to an eino tool.InvokableTool. Its JSON Schema becomes the
// tool's parameters; the JSON result is returned as the tool output.
func Tool(t core.Tool) tool.InvokableTool { return memTool{t} }

// Tools adapts memory tools; see Tool.
func Tools(ts []core.Tool) []tool.BaseTool {
	out := make([]tool.BaseTool, len(ts))
	for i, t := range ts {
		out[i] = Tool(t)
	}
	return out
}

type memTool struct{ t core.Tool }

// Info implements tool.BaseTool: it describes the memory tool, its JSON Schema as parameters.
func (m memTool) Info(context.Context) (*schema.ToolInfo, error) {
	info := &schema.ToolInfo{Name: m.t.Name, Desc: m.t.Description}
	if len(m.t.Parameters) > 0 {
		var s jsonschema.Schema
		if err := json.Unmarshal(m.t.Parameters, &s); err != nil {
			return nil, fmt.Errorf("agentmem/eino: tool %s: parameters: %w", m.t.Name, err)
		}
		info.ParamsOneOf = schema.NewParamsOneOfByJSONSchema(&s)
	}
	return info, nil
}

// InvokableRun implements tool.InvokableTool: it calls the memory tool and returns its JSON result.
func (m memTool) InvokableRun(ctx context.Context, args string, _ ...tool.Option) (string, error) {
	if m.t.Call == nil {
		return "", fmt.Errorf("agentmem/eino: tool %s has no implementation", m.t.Name)
	}
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	out, err := m.t.Call(ctx, json.RawMessage(args))
	if err != nil {
		return "", err
	}
	return string(out), nil
}

// Document metadata keys set by Retriever.
const (
	// DocThreadID is the thread of the message.
	DocThreadID = "threadId"
	// DocResourceID is the resource that owns the thread.
	DocResourceID = "resourceId"
	// DocRole is the format-2 role of the message ("user" or "assistant").
	DocRole = "role"
	// DocCreatedAt is the message time, RFC 3339 with nanoseconds, UTC.
	DocCreatedAt = "createdAt"
)

// RetrieverConfig configures Retriever.
type RetrieverConfig struct {
	// ThreadID and ResourceID select the thread searched (a resource-scoped
	// recall searches every thread of the resource); empty values come from
	// WithThread.
	ThreadID, ResourceID string
	// SemanticRecall overrides the memory's semantic-recall settings for the
	// search. retriever.WithTopK and WithScoreThreshold apply on top of it
	// (or of the core defaults when it is nil).
	SemanticRecall *core.SemanticRecall
}

// Retriever exposes semantic recall as an eino retriever.Retriever: Retrieve
// calls core Memory.Recall with the query as VectorSearch and returns the
// matched messages (with their configured neighbours) as documents, in
// chronological order. Messages without text are skipped. The memory must
// have semantic recall configured.
type Retriever struct {
	m   *Memory
	cfg RetrieverConfig
}

var _ retriever.Retriever = (*Retriever)(nil)

// Retriever returns a retriever over m's semantic recall.
func (m *Memory) Retriever(cfg RetrieverConfig) *Retriever { return &Retriever{m: m, cfg: cfg} }

// Retrieve returns the messages semantically closest to query as documents.
func (r *Retriever) Retrieve(ctx context.Context, query string, opts ...retriever.Option) ([]*schema.Document, error) {
	o := retriever.GetCommonOptions(&retriever.Options{}, opts...)
	threadID, resourceID := r.cfg.ThreadID, r.cfg.ResourceID
	if t, res, ok := ThreadFromContext(ctx); ok {
		if threadID == "" {
			threadID = t
		}
		if resourceID == "" {
			resourceID = res
		}
	}
	if threadID == "" {
		return nil, ErrNoThread
	}
	cfg := core.Config{LastMessages: core.LastN(0)}
	if base := r.m.config(ctx); base != nil {
		cfg.SemanticRecall = base.SemanticRecall
	}
	if r.cfg.SemanticRecall != nil {
		cfg.SemanticRecall = r.cfg.SemanticRecall
	}
	if o.TopK != nil || o.ScoreThreshold != nil {
		sr := core.SemanticRecall{}
		if cfg.SemanticRecall != nil {
			sr = *cfg.SemanticRecall
		}
		if o.TopK != nil {
			sr.TopK = *o.TopK
		}
		if o.ScoreThreshold != nil {
			sr.Threshold = *o.ScoreThreshold
		}
		cfg.SemanticRecall = &sr
	}
	res, err := r.m.mem.Recall(ctx, core.RecallQuery{ThreadID: threadID, ResourceID: resourceID, VectorSearch: query, Config: &cfg})
	if err != nil {
		return nil, err
	}
	docs := make([]*schema.Document, 0, len(res.Messages))
	for i := range res.Messages {
		msg := &res.Messages[i]
		text := msg.Text()
		if text == "" {
			continue
		}
		docs = append(docs, &schema.Document{ID: msg.ID, Content: text, MetaData: map[string]any{
			DocThreadID: msg.ThreadID, DocResourceID: msg.ResourceID, DocRole: string(msg.Role),
			DocCreatedAt: msg.CreatedAt.UTC().Format(time.RFC3339Nano),
		}})
	}
	return docs, nil
}
