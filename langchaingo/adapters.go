package langchaingo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tmc/langchaingo/embeddings"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/vector"
)

// Embedder adapts a langchaingo embedder to vector.Embedder (semantic recall).
// Vectors are copied, so the embedder may reuse its buffers.
func Embedder(e embeddings.Embedder) vector.Embedder { return embedder{e} }

type embedder struct{ e embeddings.Embedder }

// Embed implements vector.Embedder with EmbedDocuments.
func (e embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	vecs, err := e.e.EmbedDocuments(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("langchaingo embedder returned %d vectors for %d texts", len(vecs), len(texts))
	}
	out := make([][]float32, len(vecs))
	for i, v := range vecs {
		out[i] = append([]float32(nil), v...)
	}
	return out, nil
}

// Model adapts a langchaingo model to core.Model (thread titles): Generate
// sends a system and a human message and returns the first choice.
func Model(m llms.Model) core.Model { return model{m} }

type model struct{ m llms.Model }

// Generate implements core.Model.
func (m model) Generate(ctx context.Context, system, prompt string) (string, error) {
	var msgs []llms.MessageContent
	if system != "" {
		msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeSystem, system))
	}
	msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeHuman, prompt))
	resp, err := m.m.GenerateContent(ctx, msgs)
	if err != nil {
		return "", err
	}
	if resp == nil || len(resp.Choices) == 0 || resp.Choices[0] == nil {
		return "", errors.New("empty response from model")
	}
	return resp.Choices[0].Content, nil
}

// WorkingMemoryTool wraps a core tool (such as updateWorkingMemory from
// core.Turn.Tools) as a langchaingo tool. Call passes its input as the JSON
// arguments when it is a JSON object; other text becomes the value of the
// tool's only parameter (for example {"memory": input}), since
// langchaingo agents hand tools a single string. A JSON string result is
// returned unquoted; other results as JSON text.
func WorkingMemoryTool(t core.Tool) tools.Tool { return coreTool{t} }

type coreTool struct{ t core.Tool }

// Name implements tools.Tool.
func (c coreTool) Name() string { return c.t.Name }

// Description implements tools.Tool: the core description and how to pass arguments.
func (c coreTool) Description() string {
	d := c.t.Description
	if p := singleParam(c.t.Parameters); p != "" {
		return d + fmt.Sprintf(" Input: a JSON object matching the JSON Schema %s, or the value of %q as plain text.", compactJSON(c.t.Parameters), p)
	}
	if len(c.t.Parameters) > 0 {
		return d + fmt.Sprintf(" Input: a JSON object matching the JSON Schema %s.", compactJSON(c.t.Parameters))
	}
	return d
}

// Call implements tools.Tool.
func (c coreTool) Call(ctx context.Context, input string) (string, error) {
	if c.t.Call == nil {
		return "", fmt.Errorf("tool %s has no implementation", c.t.Name)
	}
	var args json.RawMessage
	switch trimmed := strings.TrimSpace(input); {
	case isJSONObject(trimmed):
		args = json.RawMessage(trimmed)
	case singleParam(c.t.Parameters) != "":
		args = json.RawMessage(mustJSON(map[string]string{singleParam(c.t.Parameters): input}))
	default:
		args = stringJSON(input)
	}
	res, err := c.t.Call(ctx, args)
	if err != nil {
		return "", err
	}
	return jsonText(res), nil
}

// singleParam returns the name of the only property of an object schema.
func singleParam(schema json.RawMessage) string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) != 1 {
		return ""
	}
	for k := range s.Properties {
		return k
	}
	return ""
}

func compactJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	return mustJSON(v)
}
