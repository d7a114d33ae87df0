// Package langchaingo adapts agentmem to github.com/tmc/langchaingo: it is a
// drop-in replacement for langchaingo's memory package, backed by
// [core.Memory].
//
// Import it in place of langchaingo's memory package:
//
//	import lcmem "github.com/agentmem/agentmem/langchaingo"
//
//	mem := lcmem.NewConversationBuffer() // was memory.NewConversationBuffer()
//	chain := chains.NewConversation(llm, mem)
//
// The constructors ([NewConversationBuffer], [NewConversationWindowBuffer],
// [NewConversationTokenBuffer], [NewChatMessageHistory]), their options,
// exported fields, default keys ("history", "Human", "AI") and the rendered
// history ("Human: …\nAI: …", built with [llms.GetBufferString]) are those of
// langchaingo v0.1.14. With no options the memory lives in process (a
// [core.Memory] over core/store/memstore), like upstream.
//
// With [WithMemory] and [WithThread] (or [WithThreadFromInput] /
// [WithThreadFromContext]) the conversation is a thread of a persistent
// [core.Memory]: LoadMemoryVariables runs [core.Memory.Begin] (history,
// token budget with its persisted boundary, semantic recall, working memory)
// and SaveContext commits the turn. A buffer keeps the whole conversation,
// as upstream's does, unless a window or token limit is asked for: the window
// and token buffers, or LastMessages set in the Memory's Config or with
// [WithConfig] (core's own default of 10 messages does not apply). Every
// langchaingo message type is stored losslessly (see [MessagesToCore] and
// [MessagesFromCore]), including tool calls and the intermediate steps an
// agents.Executor returns.
//
// Constructors cannot return errors, so misconfigurations fail the first
// call with a *core.Error of code core.CodeInvalidConfig: WithMemory(nil)
// ([ErrNilMemory]), WithMemory together with WithChatHistory
// ([ErrConflictingOptions]). An error about a thread of another resource
// says when the resource was [DefaultResourceID] because none was given.
//
// Persistent histories with upstream's names live in subpackages mirroring
// upstream's paths: [github.com/agentmem/agentmem/langchaingo/sqlite3]
// (NewSqliteChatMessageHistory), [github.com/agentmem/agentmem/langchaingo/alloydb]
// and [github.com/agentmem/agentmem/langchaingo/cloudsql] (NewChatMessageHistory).
// They store in agentmem's stores and import the conversations upstream's
// histories wrote (langchaingo_messages and the like) on first use.
//
// Differences from upstream, all deliberate:
//   - The token buffer counts real tokens with the Memory's tokenizer
//     (tiktoken, offline), with per-message overhead and tool calls, so it
//     keeps fewer messages than upstream's runes÷4 count for the same limit;
//     [WithUpstreamTokenCounting] restores upstream's count and cut for
//     migrations that need identical windows.
//   - The buffers apply their limits when loading as well as when saving,
//     never separate a tool call from its result, never hand out an internal
//     slice, do not loop on SetMessages, and are safe for concurrent use.
//   - With agents.WithReturnIntermediateSteps and no output key upstream's
//     SaveContext fails ("multiple keys and no input key set"); this one
//     saves the steps as tool calls and results. The rendered
//     "Human: …\nAI: …" text leaves tool calls and results out, so it is what
//     upstream renders with WithOutputKey("output"); ReturnMessages and
//     [WithReturnMessagesAsJSON] carry them.
//
// [GetInputValue], [Simple] and [NewSimple] are upstream's, re-exported.
// langchaingo's own v0.1.14 memory tests run unchanged against this package
// in internal/upstream/memory.
//
// For agents that need structured history through agents.Executor (which only
// accepts string inputs, langchaingo issue #1181), use
// [WithReturnMessagesAsJSON] together with [HistoryPlaceholder].
package langchaingo
