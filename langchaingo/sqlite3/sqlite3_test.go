package sqlite3_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/memory"
	upsqlite3 "github.com/tmc/langchaingo/memory/sqlite3"
	"github.com/tmc/langchaingo/schema"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/sqlite"
	lcmem "github.com/agentmem/agentmem/langchaingo"
	"github.com/agentmem/agentmem/langchaingo/sqlite3"
)

// promptLLM records the prompt of each call in a file and answers from the
// last human line, so equal prompts get equal answers.
type promptLLM struct{ file string }

func (p promptLLM) GenerateContent(_ context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	var b strings.Builder
	for _, m := range msgs {
		for _, part := range m.Parts {
			if t, ok := part.(llms.TextContent); ok {
				b.WriteString(t.Text)
			}
		}
	}
	prompt := b.String()
	if err := os.WriteFile(p.file, []byte(prompt), 0o644); err != nil {
		return nil, err
	}
	last := prompt[strings.LastIndex(prompt, "Human: ")+len("Human: "):]
	last = strings.TrimSuffix(strings.TrimSpace(last), "AI:")
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "You said " + strings.TrimSpace(last) + "."}}}, nil
}

func (p promptLLM) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, p, prompt, opts...)
}

// exchanges are the user inputs of the conversation.
var exchanges = []string{"Hi, I am Jim.", "I live in Lyon.", "I like cycling.", "What is my name?",
	"Where do I live?", "What do I like?", "Summarise me.", "What did I say first?"}

// variants build, in a fresh process, the memory of each implementation
// over the files in dir.
var variants = map[string]func(t *testing.T, dir string) schema.Memory{
	"upstream": func(t *testing.T, dir string) schema.Memory {
		return memory.NewConversationBuffer(memory.WithChatHistory(upsqlite3.NewSqliteChatMessageHistory(
			upsqlite3.WithDBAddress(filepath.Join(dir, "upstream.db")), upsqlite3.WithSession("jim"))))
	},
	"sqlite3": func(t *testing.T, dir string) schema.Memory {
		return lcmem.NewConversationBuffer(lcmem.WithChatHistory(sqlite3.NewSqliteChatMessageHistory(
			sqlite3.WithDBAddress(filepath.Join(dir, "sqlite3.db")), sqlite3.WithSession("jim"))))
	},
	"memory": func(t *testing.T, dir string) schema.Memory {
		st, err := sqlite.Open(context.Background(), filepath.Join(dir, "core.db"))
		require.NoError(t, err)
		t.Cleanup(func() { st.Close() })
		mem, err := core.New(core.Options{Store: st})
		require.NoError(t, err)
		return lcmem.NewConversationBuffer(lcmem.WithMemory(mem), lcmem.WithThread("jim", "jim"))
	},
}

// A conversation of 8 exchanges over SQLite, run in 3 processes (exchanges
// 1-3, 4-6, 7-8): the prompt of every exchange is, byte for byte, the one
// upstream's buffer over its sqlite3 history gives, for this package's
// sqlite3 history and for a buffer over a core.Memory with a default Config.
func TestConversationAcrossProcessesMatchesUpstream(t *testing.T) {
	dir := t.TempDir()
	for _, span := range [][2]int{{0, 3}, {3, 6}, {6, 8}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestConversationProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), "AGENTMEM_SQLITE3_DIR="+dir,
			"AGENTMEM_SQLITE3_SPAN="+strconv.Itoa(span[0])+"-"+strconv.Itoa(span[1]))
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "process for exchanges %d-%d:\n%s", span[0]+1, span[1], out)
		require.Contains(t, string(out), "PASS")
	}
	for i := range exchanges {
		want, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("upstream-%d.txt", i)))
		require.NoError(t, err)
		for _, v := range []string{"sqlite3", "memory"} {
			got, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%s-%d.txt", v, i)))
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got), "%s, exchange %d", v, i+1)
		}
	}
	last, err := os.ReadFile(filepath.Join(dir, "upstream-7.txt"))
	require.NoError(t, err)
	assert.Contains(t, string(last), "Human: Hi, I am Jim.\nAI: You said Hi, I am Jim..\n", "the first exchange is still in the eighth prompt")
}

// TestConversationProcess is one process of the test above; it runs only
// when started by it (the environment names its files and exchanges).
func TestConversationProcess(t *testing.T) {
	dir, span := os.Getenv("AGENTMEM_SQLITE3_DIR"), os.Getenv("AGENTMEM_SQLITE3_SPAN")
	if dir == "" {
		return // not started by TestConversationAcrossProcessesMatchesUpstream
	}
	from, to, ok := strings.Cut(span, "-")
	require.True(t, ok)
	lo, err := strconv.Atoi(from)
	require.NoError(t, err)
	hi, err := strconv.Atoi(to)
	require.NoError(t, err)
	for name, build := range variants {
		mem := build(t, dir)
		for i := lo; i < hi; i++ {
			chain := chains.NewConversation(promptLLM{file: filepath.Join(dir, fmt.Sprintf("%s-%d.txt", name, i))}, mem)
			_, err := chains.Run(context.Background(), chain, exchanges[i])
			require.NoError(t, err, "%s exchange %d", name, i+1)
		}
	}
}

// A session upstream's sqlite3 history wrote is imported on first use: the
// messages and the next prompt are upstream's, the table is left as it was,
// and Clear (with WithOverwrite) deletes the session in both places.
func TestImportsUpstreamTable(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "chat.db")
	up := upsqlite3.NewSqliteChatMessageHistory(upsqlite3.WithDBAddress(file), upsqlite3.WithSession("jim"))
	other := upsqlite3.NewSqliteChatMessageHistory(upsqlite3.WithDBAddress(file), upsqlite3.WithSession("ann"))
	upMem := memory.NewConversationBuffer(memory.WithChatHistory(up))
	for _, q := range exchanges[:3] {
		require.NoError(t, upMem.SaveContext(ctx, map[string]any{"input": q}, map[string]any{"text": "ok: " + q}))
	}
	require.NoError(t, other.AddUserMessage(ctx, "I am Ann."))
	require.NoError(t, up.AddMessage(ctx, llms.SystemChatMessage{Content: "Be brief."}))
	want, err := up.Messages(ctx)
	require.NoError(t, err)
	wantVars, err := upMem.LoadMemoryVariables(ctx, nil)
	require.NoError(t, err)

	h := sqlite3.NewSqliteChatMessageHistory(sqlite3.WithDBAddress(file), sqlite3.WithSession("jim"), sqlite3.WithOverwrite())
	got, err := h.Messages(ctx)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	vars, err := lcmem.NewConversationBuffer(lcmem.WithChatHistory(h)).LoadMemoryVariables(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, wantVars, vars)
	assert.Equal(t, "Human: Hi, I am Jim.\nAI: ok: Hi, I am Jim.\nHuman: I live in Lyon.\nAI: ok: I live in Lyon.\n"+
		"Human: I like cycling.\nAI: ok: I like cycling.\nsystem: Be brief.", vars["history"])

	// New messages go to agentmem's tables; a second process imports nothing twice.
	require.NoError(t, h.AddUserMessage(ctx, "And now?"))
	again := sqlite3.NewSqliteChatMessageHistory(sqlite3.WithDBAddress(file), sqlite3.WithSession("jim"))
	msgs, err := again.Messages(ctx)
	require.NoError(t, err)
	assert.Equal(t, append(want, llms.HumanChatMessage{Content: "And now?"}), msgs)
	upAfter, err := up.Messages(ctx)
	require.NoError(t, err)
	assert.Equal(t, want, upAfter, "upstream's table is not written to")
	ann, err := sqlite3.NewSqliteChatMessageHistory(sqlite3.WithDBAddress(file), sqlite3.WithSession("ann")).Messages(ctx)
	require.NoError(t, err)
	assert.Equal(t, []llms.ChatMessage{llms.HumanChatMessage{Content: "I am Ann."}}, ann)

	// Without WithOverwrite, Clear does nothing, as upstream's.
	require.NoError(t, again.Clear(ctx))
	msgs, err = again.Messages(ctx)
	require.NoError(t, err)
	assert.Len(t, msgs, len(want)+1)
	require.NoError(t, h.Clear(ctx))
	upAfter, err = up.Messages(ctx)
	require.NoError(t, err)
	assert.Empty(t, upAfter, "Clear deleted the session's upstream rows")
	msgs, err = sqlite3.NewSqliteChatMessageHistory(sqlite3.WithDBAddress(file), sqlite3.WithSession("jim")).Messages(ctx)
	require.NoError(t, err)
	assert.Empty(t, msgs, "a cleared session is not imported again")
}

// Opening failures are returned by every call, not panics.
func TestOpenErrorReturned(t *testing.T) {
	h := sqlite3.NewSqliteChatMessageHistory(sqlite3.WithDBAddress(filepath.Join(t.TempDir(), "missing-dir", "x.db")))
	_, err := h.Messages(context.Background())
	assert.Error(t, err)
	assert.Error(t, h.AddUserMessage(context.Background(), "x"))
}
