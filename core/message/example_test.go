package message_test

import (
	"encoding/json"
	"fmt"

	"github.com/agentmem/agentmem/core/message"
)

// A message is a role and ordered parts; Text joins its text parts.
func ExampleNewMessage() {
	m := message.NewMessage(message.RoleUser, "What is the weather in Paris?")
	m.Content.Parts = append(m.Content.Parts, message.TextPart("And in Rome?"))
	fmt.Println(m.Role, m.Content.Format, len(m.Content.Parts))
	fmt.Println(m.Text())
	// Output:
	// user 2 2
	// What is the weather in Paris?
	// And in Rome?
}

// A tool call and its result share a tool call id, so ToolGroups links them
// even across rows: trimming keeps or drops them together.
func ExampleToolGroups() {
	toolMsg := func(state string) message.Message {
		return message.Message{Role: message.RoleAssistant, Content: message.Content{Format: 2, Parts: []message.Part{{
			Type: message.PartToolInvocation,
			ToolInvocation: &message.ToolInvocation{
				State: state, ToolCallID: "call_1", ToolName: "weather", Args: json.RawMessage(`{"city":"Paris"}`),
			},
		}}}}
	}
	msgs := []message.Message{
		message.NewMessage(message.RoleUser, "Weather in Paris?"),
		toolMsg(message.ToolStateCall),
		message.NewMessage(message.RoleUser, "Take your time."),
		toolMsg(message.ToolStateResult),
	}
	fmt.Println(msgs[3].ToolCallIDs())
	fmt.Println(message.ToolGroups(msgs))
	// Output:
	// [call_1]
	// [[0] [1 3] [2]]
}

// Stores keep content as MarshalStored encodes it: the parts only, without
// the v4 "content" mirror that encoding/json adds for clients, and one plain
// text part as just its string. UnmarshalStored reads it back, and older
// shapes too (here a row written with the mirror).
func ExampleMarshalStored() {
	m := message.NewMessage(message.RoleAssistant, "Hello Ada.")
	stored, err := message.MarshalStored(m.Content)
	if err != nil {
		panic(err)
	}
	client, _ := json.Marshal(m.Content)
	fmt.Println(string(stored))
	fmt.Println(string(client))
	m.Content.Parts = append(m.Content.Parts, message.TextPart("Welcome back."))
	stored, _ = message.MarshalStored(m.Content)
	fmt.Println(string(stored))

	var c message.Content
	if err := message.UnmarshalStored(client, &c); err != nil {
		panic(err)
	}
	fmt.Println(c.Format, c.Parts[0].Type, c.Parts[0].Text)
	// Output:
	// "Hello Ada."
	// {"content":"Hello Ada.","format":2,"parts":[{"text":"Hello Ada.","type":"text"}]}
	// {"format":2,"parts":[{"text":"Hello Ada.","type":"text"},{"text":"Welcome back.","type":"text"}]}
	// 2 text Hello Ada.
}
