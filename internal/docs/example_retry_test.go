package docs_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// A Commit that failed because the database could not be reached (a
// failover in progress) is called again on the same turn: it saves the same
// messages under the same ids. docs/production.md shows it from the first
// blank line on.
func Example_retryCommit() {
	mem, err := core.New(core.Options{Store: memstore.New()})
	if err != nil {
		panic(err)
	}
	turn, err := mem.Begin(context.Background(), core.TurnRequest{ThreadID: "t", ResourceID: "u",
		Input: []core.Message{core.NewMessage(core.RoleUser, "Hello")}})
	if err != nil {
		panic(err)
	}
	answer := core.NewMessage(core.RoleAssistant, "Hi")

	for attempt := 1; ; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = turn.Commit(ctx, []core.Message{answer})
		cancel()
		retry := errors.Is(err, core.ErrStorageUnavailable) || errors.Is(err, core.ErrDeadlineExceeded)
		if err == nil || !retry || attempt == 30 {
			break
		}
		time.Sleep(min(time.Duration(attempt)*100*time.Millisecond, 2*time.Second))
	}
	fmt.Println("committed:", err == nil)
	// Output: committed: true
}
