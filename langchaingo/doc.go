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
// and SaveContext commits the turn. Every langchaingo message type is stored
// losslessly (see [MessagesToCore] and [MessagesFromCore]), including tool
// calls and the intermediate steps an agents.Executor returns.
//
// Unlike upstream, the buffers count tokens with tiktoken (the Memory's
// tokenizer), apply their limits when loading as well as when saving, never
// separate a tool call from its result, never hand out an internal slice, do
// not loop on SetMessages, and are safe for concurrent use.
//
// For agents that need structured history through agents.Executor (which only
// accepts string inputs, langchaingo issue #1181), use
// [WithReturnMessagesAsJSON] together with [HistoryPlaceholder].
package langchaingo
