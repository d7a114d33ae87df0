// Package core is agentmem's framework-neutral conversation memory: threads
// and resources, messages in Mastra's format 2, the turn (Begin → prompt →
// Commit), token-budgeted history with a persisted per-thread boundary,
// semantic recall, working memory, titles and observational memory.
//
//	import "github.com/agentmem/agentmem/core"
//
// # The turn
//
// Every framework turn is three steps, so adapters stay thin:
//
//	turn, err := mem.Begin(ctx, core.TurnRequest{ThreadID: "t1", ResourceID: "user-1",
//		System: []string{instructions}, Input: newMessages})
//	prompt := turn.Messages() // each message carries its Source
//	// ... call the model, run tools ...
//	err = turn.Commit(ctx, responseMessages)
//
// [Memory.Begin] is a named list of steps (input, thread, history, input
// filter, instructions, working memory, semantic recall, context, token
// budget, processors, tool pairing); an error names its step in Op. History
// comes from a source: the count and/or token window after the persisted
// boundary, or, with observational memory, the observations and every
// message not yet observed. A failed working-memory read or semantic recall
// does not fail the turn: it is logged and reported by [Turn.WorkingMemoryErr]
// or [Turn.RecallErr]. [Turn.Commit] saves the input and the response
// in one atomic write, then runs the side effects of a save in one list:
// indexing for recall (inline), the retry of earlier failed indexing, the
// title and observational memory (in the background when configured;
// [Memory.Close] awaits them). A side effect never fails the save.
//
// Tokens are counted once per message, when it is saved, and stored with
// it (package budget).
//
// # Configuration
//
// [Options] configures a Memory once; [Config] holds the memory settings
// (LastMessages, MessageHistory, SemanticRecall, WorkingMemory,
// GenerateTitle, ObservationalMemory, ReadOnly, …). New resolves and deep-copies
// it once; [Memory.Config] returns a copy. A per-call Config (in TurnRequest,
// RecallQuery, SaveMessages) is merged over it field by field, nested structs
// included ([Config.Merge]).
// The direct API mirrors Mastra's Memory class: CreateThread, GetThread,
// ListThreads, UpdateThread, DeleteThread, CloneThread, SaveMessages, Recall,
// UpdateMessages, DeleteMessages, GetWorkingMemory, UpdateWorkingMemory.
//
// # Errors
//
// Every error is a *[Error] with a stable [Code]; compare with errors.Is
// against the immutable sentinels ([ErrThreadNotFound], [ErrResourceMismatch],
// [ErrInvalidConfig], …) or inspect with errors.As. An ended context is
// reported first, as [CodeCanceled] or [CodeDeadlineExceeded], wrapping the
// context error so that errors.Is(err, context.Canceled) holds too; retry
// loops never retry it. Bad input gets a typed error and changes nothing.
// The error model lives in package memerr; core names the same Code, Error
// and sentinels, so a user of the turn needs no other import.
//
// # Names from the contract packages
//
// core re-exports, as aliases, the names a user of the turn touches:
// Message, Role, Source, Content, Part and their Role*, Source* and Part*
// constants from core/message; Thread, Scope, ScopeThread and ScopeResource
// from core/store; Code, Error and every Code* and Err* from core/memerr.
// They are the same types and values under a second name, for users only:
// code inside this module spells each name after the package that defines
// it.
//
// # Concurrency
//
// A *Memory is safe for concurrent use by multiple goroutines; a *[Turn] is
// used by one goroutine. Every invariant that spans requests (the boundary,
// working-memory versions, observation records, idempotent saves, insert-only
// thread creation) is enforced by the store, never by process memory, so any
// number of processes may share one database. The interfaces users implement
// (store.Store and its capabilities, vector.Store, vector.Embedder, [Model],
// [Tokenizer], [Processor]) must be safe for concurrent use.
//
// # Drivers
//
// The contracts live in their own packages (core/store, core/vector,
// core/message, core/memerr), so a driver never imports core, and each name
// has one spelling; core names only what a user of the turn touches.
// store.Checked validates every store call Memory makes, and storetest
// drives backends through it; vector.Checked and vectortest do the same for
// vector stores.
// docs/architecture.md draws the packages and what may import what.
package core
