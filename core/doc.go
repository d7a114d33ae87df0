// Package core is agentmem's framework-neutral memory model: threads, resources,
// messages in format 2, the turn (Begin → prompt → Commit), token-budgeted history
// with a persisted per-thread boundary, semantic recall, working memory and
// observational memory (observer and reflector models condensing the
// conversation into observations; see [ObservationalMemoryConfig]).
//
// A [Memory] owns every semantic rule; storage backends implement the small
// [Store] driver interface and prove themselves with the conformance suite in
// package storetest. Nothing here imports an LLM framework, a database driver or
// a vector client: adapters live in sibling packages.
//
// A *Memory is safe for concurrent use by multiple goroutines. Every invariant that
// spans requests (boundaries, working memory, observation records, idempotent
// saves) is enforced by the Store, so any number of processes may share one
// database.
package core
