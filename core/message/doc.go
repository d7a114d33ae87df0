// Package message is agentmem's message model: Mastra's MastraDBMessage
// format 2, with roles user, assistant, system and signal, typed parts (text,
// reasoning, tool invocations with call and result states, files, sources,
// step starts), its JSON encoding (the AI SDK v4 mirrors are derived when
// encoding and accepted when decoding), the stored form drivers write, and
// the rules that link a tool call to its result (ToolGroups).
//
//	import "github.com/agentmem/agentmem/core/message"
package message
