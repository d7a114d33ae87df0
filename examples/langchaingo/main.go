// Command langchaingo shows agentmem as the memory of a langchaingo
// conversation chain, persisted in an embedded SQLite file. Run it twice: the
// second process loads the history the first one saved and continues the
// same conversation.
//
//	go run ./examples/langchaingo                    # "Hi! I'm Jim. I live in Oslo."
//	go run ./examples/langchaingo                    # "What is my name?"
//	go run ./examples/langchaingo "Where do I live?"
//	go run ./examples/langchaingo -reset
//
// The model is a scripted offline stand-in that answers from the prompt it
// receives; set OPENAI_API_KEY to talk to OpenAI instead.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"regexp"
	"strings"

	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/sqlite"
	lcmem "github.com/agentmem/agentmem/langchaingo"
)

func main() {
	db := flag.String("db", "./memory.db", "SQLite database file")
	thread := flag.String("thread", "jim-conversation", "thread id")
	user := flag.String("user", "jim", "resource (user) id")
	reset := flag.Bool("reset", false, "clear the conversation and exit")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *db, *thread, *user, *reset, strings.Join(flag.Args(), " ")); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, w io.Writer, dbPath, thread, user string, reset bool, input string) error {
	store, err := sqlite.Open(ctx, dbPath)
	if err != nil {
		return err
	}
	defer store.Close()

	llm, err := newModel()
	if err != nil {
		return err
	}
	mem, err := core.New(core.Options{Store: store, Model: lcmem.Model(llm),
		Config: core.Config{LastMessages: core.LastN(20), GenerateTitle: &core.TitleConfig{}}})
	if err != nil {
		return err
	}
	defer mem.Close(ctx)

	buffer := lcmem.NewConversationBuffer(lcmem.WithMemory(mem), lcmem.WithThread(thread, user))
	if reset {
		return buffer.Clear(ctx)
	}

	history, err := buffer.ChatHistory.Messages(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Loaded %d messages of thread %q from %s:\n", len(history), thread, dbPath)
	text, err := llms.GetBufferString(history, "Human", "AI")
	if err != nil {
		return err
	}
	if text != "" {
		fmt.Fprintln(w, indent(text))
	}

	if input == "" {
		input = "Hi! I'm Jim. I live in Oslo."
		if len(history) > 0 {
			input = "What is my name?"
		}
	}
	chain := chains.NewConversation(llm, buffer)
	answer, err := chains.Run(ctx, chain, input)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nHuman: %s\nAI: %s\n", input, answer)
	if err := mem.Close(ctx); err != nil { // wait for the title
		return err
	}
	if th, err := mem.GetThread(ctx, thread, user); err == nil && th.Title != "" {
		fmt.Fprintf(w, "\nThread title: %s\n", th.Title)
	}
	return nil
}

func indent(s string) string { return "  " + strings.ReplaceAll(s, "\n", "\n  ") }

// newModel returns OpenAI when OPENAI_API_KEY is set, else the offline model.
func newModel() (llms.Model, error) {
	if os.Getenv("OPENAI_API_KEY") != "" {
		return openai.New()
	}
	return offlineModel{}, nil
}

// offlineModel is a scripted llms.Model: it reads the conversation from its
// prompt, so its answers show what memory gave it.
type offlineModel struct{}

var (
	nameRE  = regexp.MustCompile(`(?i)\b(?:I'm|I am|my name is) ([A-Z][a-z]+)`)
	placeRE = regexp.MustCompile(`(?i)\bI live in ([A-Z][a-z]+)`)
)

// GenerateContent implements llms.Model with a scripted reply.
func (offlineModel) GenerateContent(_ context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	var prompt strings.Builder
	system := false
	for _, m := range msgs {
		system = system || m.Role == llms.ChatMessageTypeSystem
		for _, p := range m.Parts {
			if t, ok := p.(llms.TextContent); ok {
				prompt.WriteString(t.Text + "\n")
			}
		}
	}
	text := prompt.String()
	// The last "Human:" line is the question; everything before is memory.
	question, memory := text, ""
	if i := strings.LastIndex(text, "Human: "); i >= 0 {
		question, memory = text[i+len("Human: "):], text[:i]
	}
	find := func(re *regexp.Regexp, s string) string {
		if m := re.FindAllStringSubmatch(s, -1); len(m) > 0 {
			return m[len(m)-1][1]
		}
		return ""
	}
	var answer string
	switch q := strings.ToLower(question); {
	case system: // the title request of agentmem
		answer = "Getting to know Jim"
		if name := find(nameRE, text); name != "" {
			answer = "Getting to know " + name
		}
	case strings.Contains(q, "my name"):
		answer = "I don't know your name yet."
		if name := find(nameRE, memory); name != "" {
			answer = "Your name is " + name + "."
		}
	case strings.Contains(q, "where do i live"):
		answer = "You haven't told me where you live."
		if place := find(placeRE, memory); place != "" {
			answer = "You live in " + place + "."
		}
	case find(nameRE, question) != "":
		answer = "Nice to meet you, " + find(nameRE, question) + "!"
	default:
		answer = fmt.Sprintf("I remember %d earlier lines of our conversation.", strings.Count(memory, "\nHuman: ")+strings.Count(memory, "\nAI: "))
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: answer}}}, nil
}

// Call implements llms.Model for a single prompt.
func (m offlineModel) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}
