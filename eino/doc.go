// Package eino connects agentmem's framework-neutral memory (package core)
// to CloudWeGo eino (v0.9). Its name is its folder's, like every package of
// agentmem; since it shares it with eino's own module, import it under an
// alias:
//
//	import einomem "github.com/agentmem/agentmem/eino"
//
// and wrap a core.Memory with New. The thread and resource of a call travel
// in the context (WithThread, the same context key as the langchaingo
// adapter's ContextWithThread); per-call configuration such as read-only
// turns in WithConfig.
//
// Graphs, chains and workflows get two lambdas around the ChatModel node:
//
//	START → LoadLambda → ChatModel → SaveLambda → END
//
// LoadLambda turns the new messages of the turn into the prompt (system
// prompt, history, semantic recall, input) with core Memory.Begin; SaveLambda
// commits the turn with the model's message, also on a stream (chunks pass
// through, the concatenated message is saved at the end). The turn between
// the two is kept per invocation: in the graph's local state when it
// implements TurnCarrier (GenState, or a user state embedding TurnState), else
// in the context made by WithThread. PreHandler, PostHandler and
// StreamPostHandler do the same as state handlers on the ChatModel node.
//
// Agents: NewReact builds a flow/agent/react agent whose every model call
// is fitted to the token budget (StepModifier); WrapReact wraps an agent
// built with StepModifier, and a run of one built without fails with
// ErrNoStepModifier before its second model call. Both save every
// message of a run, tool calls and tool results included, also when the
// caller passes its own react.WithMessageFuture (the run is collected from
// the agent's node callbacks) and when a Stream is closed before its end (the
// run is saved in the background and the next turn on the thread waits for
// it). Middleware is an adk.ChatModelAgentMiddleware for ChatModelAgent over
// *schema.Message, AgenticMiddleware the same for *schema.AgenticMessage
// agents (both are TypedMiddleware).
//
// A tool result sent as input (a client-side tool) needs no ToolName: Begin
// completes its name and arguments from the call in the stored history. Calls
// without an id get one (message.NewToolCallID), calls without a name the
// shared placeholder message.PlaceholderToolName.
//
// FromEino and ToEino convert between schema.Message and core.Message. A
// schema.Tool message becomes an assistant message with a tool-invocation
// part in state "result" that carries the call's name and arguments; fields
// format 2 has no place for are kept in content.metadata["eino"], so a
// conversation converted, stored and loaded again comes back unchanged.
//
// Embedder, Model and Tool adapt eino components to core (embeddings for
// semantic recall, a chat model for titles) and memory tools to eino;
// Retriever exposes semantic recall as a retriever.Retriever.
package eino
