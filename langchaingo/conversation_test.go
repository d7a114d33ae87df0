package langchaingo

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/memory"
	"github.com/tmc/langchaingo/schema"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/sqlite"
)

var conversationTurns = []string{"Hi! I'm Jim", "What is my name?", "Thanks & goodbye <3"}

// runConversation drives chains.NewConversation over the turns and returns
// the prompts the model received.
func runConversation(t *testing.T, mem schema.Memory) []string {
	t.Helper()
	llm := scripted("Hello Jim, nice to meet you!", "Your name is Jim.", "Bye, Jim!\nTake care.")
	chain := chains.NewConversation(llm, mem)
	for _, turn := range conversationTurns {
		_, err := chains.Run(context.Background(), chain, turn)
		require.NoError(t, err)
	}
	return llm.prompts()
}

func TestConversationPromptsMatchUpstream(t *testing.T) {
	t.Parallel()
	want := runConversation(t, memory.NewConversationBuffer())
	require.Len(t, want, 3)
	require.Contains(t, want[0], "Current conversation:\n\nHuman: Hi! I'm Jim\nAI:")

	store, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "memory.db"))
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	persistent, err := core.New(core.Options{Store: store})
	require.NoError(t, err)

	cases := map[string]schema.Memory{
		"default":      NewConversationBuffer(),
		"window":       NewConversationWindowBuffer(5),
		"token":        NewConversationTokenBuffer(nil, 2000),
		"sqlite":       NewConversationBuffer(WithMemory(persistent), WithThread("jim", "user-1")),
		"sqlite-token": NewConversationTokenBuffer(nil, 2000, WithMemory(persistent), WithThread("jim-2", "user-1")),
	}
	for name, mem := range cases {
		t.Run(name, func(t *testing.T) {
			got := runConversation(t, mem)
			require.Len(t, got, len(want))
			for i := range want {
				assert.Equal(t, want[i], got[i], "prompt of turn %d", i+1)
			}
		})
	}
}

// A second buffer over the same memory and thread (a second process)
// continues the conversation.
func TestConversationContinuesAcrossProcesses(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "memory.db")
	ctx := context.Background()
	run := func(input string) (string, []string) {
		store, err := sqlite.Open(ctx, path)
		require.NoError(t, err)
		defer store.Close()
		mem, err := core.New(core.Options{Store: store})
		require.NoError(t, err)
		buf := NewConversationBuffer(WithMemory(mem), WithThread("conv", "jim"))
		llm := scripted("ok: " + input)
		_, err = chains.Run(ctx, chains.NewConversation(llm, buf), input)
		require.NoError(t, err)
		hist, err := buf.ChatHistory.Messages(ctx)
		require.NoError(t, err)
		return llm.prompts()[0], []string{fmt.Sprint(len(hist))}
	}
	_, n1 := run("first")
	p2, n2 := run("second")
	assert.Equal(t, []string{"2"}, n1)
	assert.Equal(t, []string{"4"}, n2)
	assert.Contains(t, p2, "Current conversation:\nHuman: first\nAI: ok: first\nHuman: second\nAI:")
}

// chains.Apply runs Load and Save from several goroutines; every turn is
// committed to its own thread.
func TestConcurrentApply(t *testing.T) {
	t.Parallel()
	mem := newMem(t, core.Config{LastMessages: core.AllMessages})
	buf := NewConversationBuffer(WithMemory(mem), WithThreadFromInput("thread_id", "user_id"), WithInputKey("input"))
	chain := chains.NewConversation(scripted(), buf)
	var inputs []map[string]any
	for i := range 40 {
		inputs = append(inputs, map[string]any{"input": fmt.Sprintf("q%d", i),
			"thread_id": fmt.Sprintf("t%d", i%4), "user_id": "u"})
	}
	_, err := chains.Apply(context.Background(), chain, inputs, 8)
	require.NoError(t, err)
	for th := range 4 {
		msgs, err := buf.ChatHistory.(*ChatMessageHistory).ForThread(fmt.Sprintf("t%d", th), "u").Messages(context.Background())
		require.NoError(t, err)
		require.Len(t, msgs, 20)
		// Each answer follows its own question.
		pairs := map[string]string{}
		for i := 0; i < len(msgs); i++ {
			if h, ok := msgs[i].(llms.HumanChatMessage); ok {
				for j := i + 1; j < len(msgs); j++ {
					if a, ok := msgs[j].(llms.AIChatMessage); ok && strings.HasSuffix(a.Content, "Human: "+h.Content+"\nAI:") {
						pairs[h.Content] = a.Content
					}
				}
			}
		}
		assert.Len(t, pairs, 10)
	}
}

// The same memory instance used concurrently on one thread, with loads and
// saves interleaved, keeps every turn.
func TestConcurrentSameThread(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, mem := range []schema.Memory{NewConversationBuffer(), NewConversationWindowBuffer(3), NewConversationTokenBuffer(nil, 300)} {
		var wg sync.WaitGroup
		for i := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				in := map[string]any{"input": fmt.Sprint("q", i)}
				_, err := mem.LoadMemoryVariables(ctx, in)
				assert.NoError(t, err)
				assert.NoError(t, mem.SaveContext(ctx, in, map[string]any{"text": fmt.Sprint("a", i)}))
			}()
		}
		wg.Wait()
		var h schema.ChatMessageHistory
		switch m := mem.(type) {
		case *ConversationBuffer:
			h = m.ChatHistory
		case *ConversationWindowBuffer:
			h = m.ChatHistory
		case *ConversationTokenBuffer:
			h = m.ChatHistory
		}
		msgs, err := h.Messages(ctx)
		require.NoError(t, err)
		assert.Len(t, msgs, 32)
	}
}
