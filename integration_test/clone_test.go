package integration_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
)

// Two concurrent clones to one new id, on every store: exactly one
// succeeds, the other gets ErrThreadExists, and the clone holds each message
// once.
func TestCloneThreadRace(t *testing.T) {
	for _, b := range omBackends() {
		t.Run(b.name, func(t *testing.T) {
			m, err := core.New(core.Options{Store: b.open(t)})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.CreateThread(bg, core.ThreadInput{ID: "src", ResourceID: "r"}); err != nil {
				t.Fatal(err)
			}
			msgs := []core.Message{core.NewMessage(core.RoleUser, "one"), core.NewMessage(core.RoleAssistant, "two")}
			for i := range msgs {
				msgs[i].ThreadID, msgs[i].ResourceID = "src", "r"
			}
			if _, err := m.SaveMessages(bg, msgs, nil); err != nil {
				t.Fatal(err)
			}
			for round := 0; round < 20; round++ {
				id := fmt.Sprintf("clone-%d", round)
				errs := make([]error, 2)
				var wg sync.WaitGroup
				for i := range errs {
					wg.Add(1)
					go func() {
						defer wg.Done()
						_, _, errs[i] = m.CloneThread(bg, core.CloneOptions{SourceThreadID: "src", NewThreadID: id})
					}()
				}
				wg.Wait()
				ok := 0
				for _, err := range errs {
					switch {
					case err == nil:
						ok++
					case !errors.Is(err, core.ErrThreadExists):
						t.Fatalf("round %d: clone failed with %v, want ErrThreadExists", round, err)
					}
				}
				if ok != 1 {
					t.Fatalf("round %d: %d clones succeeded, want exactly 1", round, ok)
				}
				page, err := m.Recall(bg, core.RecallQuery{ThreadID: id, ResourceID: "r", PerPage: store.PerPageAll})
				if err != nil {
					t.Fatal(err)
				}
				if len(page.Messages) != 2 {
					t.Fatalf("round %d: the clone holds %d messages, want 2", round, len(page.Messages))
				}
			}
		})
	}
}
