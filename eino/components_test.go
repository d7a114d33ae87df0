package eino_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/components/embedding"
	"github.com/cloudwego/eino/components/retriever"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/vector/local"
	einomem "github.com/agentmem/agentmem/eino"
	"github.com/agentmem/agentmem/internal/testenv"
)

// einoEmbedder is an eino embedding.Embedder over the offline hash embedder.
type einoEmbedder struct{ h *local.HashEmbedder }

func (e einoEmbedder) EmbedStrings(ctx context.Context, texts []string, _ ...embedding.Option) ([][]float64, error) {
	v32, err := e.h.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	out := make([][]float64, len(v32))
	for i, v := range v32 {
		for _, x := range v {
			out[i] = append(out[i], float64(x))
		}
	}
	return out, nil
}

func TestEmbedder(t *testing.T) {
	h := local.NewHashEmbedder(16)
	got, err := einomem.Embedder(einoEmbedder{h}).Embed(ctx, []string{"hello world", "x"})
	must(t, err)
	want, _ := h.Embed(ctx, []string{"hello world", "x"})
	for i := range want {
		for j := range want[i] {
			if got[i][j] != want[i][j] {
				t.Fatalf("vector %d[%d] = %v, want %v", i, j, got[i][j], want[i][j])
			}
		}
	}
}

// Semantic recall through eino: the embedder adapter feeds the index and the
// retriever returns the matching messages as documents.
func TestRetriever(t *testing.T) {
	sr := &core.SemanticRecall{Scope: core.ScopeThread, TopK: 1, MessageRange: &core.MessageRange{}}
	mem, err := core.New(core.Options{Store: memstore.New(), Vector: local.New(), Embedder: einomem.Embedder(einoEmbedder{local.NewHashEmbedder(64)}),
		Tokenizer: testenv.ByteTokenizer{}, Config: core.Config{SemanticRecall: sr}})
	must(t, err)
	em := einomem.New(mem, einomem.Options{})
	cm := &scripted{t: t, reply: func(n int, _ []*schema.Message) *schema.Message {
		return schema.AssistantMessage([]string{"Bring an umbrella, rain is expected.", "Paris is lovely in spring.", "Sure."}[n], nil)
	}}
	run := memoryGraph(t, em, cm)
	c := einomem.WithThread(ctx, "rt", "alice")
	for _, q := range []string{"Will it rain tomorrow?", "Tell me about Paris.", "ok"} {
		_, err := run.Invoke(c, []*schema.Message{schema.UserMessage(q)})
		must(t, err)
	}
	var r retriever.Retriever = em.Retriever(einomem.RetrieverConfig{})
	docs, err := r.Retrieve(c, "umbrella rain")
	must(t, err)
	if len(docs) != 1 || !strings.Contains(docs[0].Content, "umbrella") || docs[0].MetaData[einomem.DocThreadID] != "rt" || docs[0].MetaData[einomem.DocRole] != "assistant" {
		t.Fatalf("docs = %s", dump(docs))
	}
	// Options apply on top of RetrieverConfig.SemanticRecall (core.Memory
	// does not expose its own configuration).
	docs, err = em.Retriever(einomem.RetrieverConfig{SemanticRecall: sr}).Retrieve(c, "Paris spring", retriever.WithTopK(2))
	must(t, err)
	if len(docs) != 2 {
		t.Fatalf("top 2 = %s", dump(docs))
	}
	// In a graph as a retriever node.
	g := compose.NewChain[string, []*schema.Document]()
	g.AppendRetriever(r)
	chain, err := g.Compile(ctx)
	must(t, err)
	docs, err = chain.Invoke(c, "lovely Paris")
	must(t, err)
	if len(docs) != 1 || !strings.Contains(docs[0].Content, "Paris") {
		t.Fatalf("chain docs = %s", dump(docs))
	}
	if _, err := r.Retrieve(ctx, "x"); !errors.Is(err, einomem.ErrNoThread) {
		t.Fatalf("without thread: %v", err)
	}
}

// The Model adapter generates thread titles.
func TestModelTitles(t *testing.T) {
	var mu sync.Mutex
	var titled string
	titler := &scripted{t: t, reply: func(_ int, in []*schema.Message) *schema.Message {
		if in[0].Role != schema.System || in[1].Role != schema.User || !strings.Contains(in[1].Content, "User: Plan a trip") {
			t.Errorf("title prompt = %s", dump(in))
		}
		return schema.AssistantMessage("Trip planning", nil)
	}}
	store := memstore.New()
	mem, err := core.New(core.Options{Store: store, Tokenizer: testenv.ByteTokenizer{}, Model: einomem.Model(titler),
		Config: core.Config{GenerateTitle: &core.TitleConfig{OnTitle: func(_, title string) { mu.Lock(); titled = title; mu.Unlock() }}}})
	must(t, err)
	run := memoryGraph(t, einomem.New(mem, einomem.Options{}), &scripted{t: t, reply: func(int, []*schema.Message) *schema.Message {
		return schema.AssistantMessage("Where to?", nil)
	}})
	_, err = run.Invoke(einomem.WithThread(ctx, "trip", "r"), []*schema.Message{schema.UserMessage("Plan a trip")})
	must(t, err)
	must(t, mem.Close(ctx))
	th, err := store.GetThread(ctx, "trip")
	must(t, err)
	mu.Lock()
	defer mu.Unlock()
	if th.Title != "Trip planning" || titled != "Trip planning" {
		t.Fatalf("title = %q / %q", th.Title, titled)
	}
}

// Messages written by other clients (file parts, several text parts) map to
// multi-content parts.
func TestToEinoFiles(t *testing.T) {
	user := core.Message{Role: core.RoleUser, Content: core.Content{Format: 2, Parts: []core.Part{
		core.TextPart("what is this?"),
		{Type: core.PartFile, Data: "https://example.com/cat.png", MimeType: "image/png"},
		{Type: core.PartFile, Data: "JVBERi0=", MimeType: "application/pdf", Filename: "a.pdf"},
	}}}
	got := einomem.MessageToEino(user)[0]
	if len(got.UserInputMultiContent) != 3 || got.Content != "" ||
		*got.UserInputMultiContent[1].Image.URL != "https://example.com/cat.png" ||
		*got.UserInputMultiContent[2].File.Base64Data != "JVBERi0=" || got.UserInputMultiContent[2].File.Name != "a.pdf" {
		t.Fatalf("user = %s", dump(got))
	}
	asst := core.Message{Role: core.RoleAssistant, Content: core.Content{Format: 2, Parts: []core.Part{
		{Type: core.PartReasoning, Reasoning: "r1"}, core.TextPart("one"), core.TextPart("two"),
	}}}
	got = einomem.MessageToEino(asst)[0]
	if got.Content != "one\ntwo" || got.ReasoningContent != "r1" {
		t.Fatalf("assistant = %s", dump(got))
	}
	img := core.Message{Role: core.RoleAssistant, Content: core.Content{Format: 2, Parts: []core.Part{
		core.TextPart("here"), {Type: core.PartFile, Data: "iVBOR", MimeType: "image/png"},
	}}}
	got = einomem.MessageToEino(img)[0]
	if len(got.AssistantGenMultiContent) != 2 || *got.AssistantGenMultiContent[1].Image.Base64Data != "iVBOR" {
		t.Fatalf("assistant image = %s", dump(got))
	}
	b, _ := json.Marshal(got)
	if !strings.Contains(string(b), "image/png") {
		t.Fatalf("mime lost: %s", b)
	}
}

// The turn lives in the graph state when the state is a TurnCarrier.
func TestTurnInGraphState(t *testing.T) {
	em := einomem.New(newMemory(t, nil, core.Config{}), einomem.Options{})
	g := compose.NewGraph[[]*schema.Message, *schema.Message](compose.WithGenLocalState(einomem.GenState))
	must(t, g.AddLambdaNode("load", em.LoadLambda()))
	must(t, g.AddLambdaNode("check", compose.InvokableLambda(func(ctx context.Context, in []*schema.Message) ([]*schema.Message, error) {
		return in, compose.ProcessState(ctx, func(_ context.Context, s *einomem.TurnState) error {
			if s.Turn() == nil {
				return errors.New("turn not in state")
			}
			return nil
		})
	})))
	must(t, g.AddChatModelNode("model", &scripted{t: t, reply: func(int, []*schema.Message) *schema.Message { return schema.AssistantMessage("ok", nil) }}))
	must(t, g.AddLambdaNode("save", em.SaveLambda()))
	for _, e := range [][2]string{{compose.START, "load"}, {"load", "check"}, {"check", "model"}, {"model", "save"}, {"save", compose.END}} {
		must(t, g.AddEdge(e[0], e[1]))
	}
	run, err := g.Compile(ctx)
	must(t, err)
	// One WithThread context shared by concurrent invocations: each keeps
	// its own turn in its own state.
	c := einomem.WithThread(ctx, "shared", "r")
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := run.Invoke(c, []*schema.Message{schema.UserMessage("hi")}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := len(stored(t, em.Core(), "shared")); n != 16 {
		t.Fatalf("stored %d messages", n)
	}
}

// The retriever searches through core's recall: the memory's
// SemanticRecall.Filter holds under its own SemanticRecall and options.
func TestRetrieverKeepsTheConfiguredFilter(t *testing.T) {
	public, err := message.ParseFilter(map[string]any{"visibility": "public"})
	must(t, err)
	mem, err := core.New(core.Options{Store: memstore.New(), Vector: local.New(), Embedder: local.NewHashEmbedder(64), Tokenizer: testenv.ByteTokenizer{},
		Config: core.Config{SemanticRecall: &core.SemanticRecall{MessageRange: &core.MessageRange{}, Filter: public}}})
	must(t, err)
	_, err = mem.CreateThread(ctx, core.ThreadInput{ID: "t", ResourceID: "u"})
	must(t, err)
	for _, vis := range []string{"public", "private"} {
		msg := core.NewMessage(core.RoleUser, "my bank PIN, "+vis)
		msg.ThreadID, msg.ResourceID, msg.Content.Metadata = "t", "u", map[string]any{"visibility": vis}
		_, err := mem.SaveMessages(ctx, []core.Message{msg}, nil)
		must(t, err)
	}
	em := einomem.New(mem, einomem.Options{})
	for _, cfg := range []einomem.RetrieverConfig{{}, {SemanticRecall: &core.SemanticRecall{TopK: 5}}} {
		docs, err := em.Retriever(cfg).Retrieve(einomem.WithThread(ctx, "t", "u"), "my bank PIN", retriever.WithTopK(5))
		must(t, err)
		if len(docs) != 1 || !strings.HasSuffix(docs[0].Content, "public") {
			t.Fatalf("%+v: docs = %s", cfg, dump(docs))
		}
	}
}
