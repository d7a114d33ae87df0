package message_test

import (
	"fmt"

	"github.com/agentmem/agentmem/core/message"
)

// ExampleParseFilter builds a filter in Mastra's syntax and tests metadata
// with it, as every store does in its own query language.
func ExampleParseFilter() {
	f, err := message.ParseFilterJSON(`{"projectId":"a","priority":{"$in":["high","urgent"]},"score":{"$gte":0.5}}`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Match(map[string]any{"projectId": "a", "priority": "high", "score": 0.9}))
	fmt.Println(f.Match(map[string]any{"projectId": "a", "priority": "low", "score": 0.9}))
	// Output:
	// true
	// false
}
