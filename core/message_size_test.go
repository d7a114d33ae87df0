package core_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
)

// wantTooLarge checks that err is ErrMessageTooLarge (as a *core.Error with
// its code) and that its text holds every part of want.
func wantTooLarge(t *testing.T, err error, want ...string) {
	t.Helper()
	var e *core.Error
	if !errors.Is(err, core.ErrMessageTooLarge) || !errors.As(err, &e) || e.Code != core.CodeMessageTooLarge {
		t.Fatalf("err = %v, want ErrMessageTooLarge", err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
}

// storedIDs returns the ids of the messages stored in thread "t".
func storedIDs(t *testing.T, m *core.Memory) []string {
	t.Helper()
	res, err := m.Recall(ctx, core.RecallQuery{ThreadID: "t", PerPage: store.PerPageAll})
	if err != nil {
		t.Fatal(err)
	}
	return ids(res.Messages)
}

// The size limit measures the content as the stores keep it, each text
// once: 2 MiB of text is stored, not refused as twice its size.
func TestMessageSizeMeasuresTheStoredEncoding(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		m := newMem(t, s, core.Config{})
		if _, err := m.CreateThread(ctx, core.ThreadInput{ID: "t", ResourceID: "r"}); err != nil {
			t.Fatal(err)
		}
		big := userAt("big", "t", "r", strings.Repeat("a", 2_097_162), T(1))
		if _, err := m.SaveMessages(ctx, []core.Message{big}, nil); err != nil {
			t.Fatalf("2 MiB of text: %v", err)
		}
		got, err := s.GetMessages(ctx, []string{"big"})
		if err != nil || len(got) != 1 || got[0].Text() != big.Text() {
			t.Fatalf("stored %d messages, %v", len(got), err)
		}
	})
}

// A message over the limit is refused with an error naming it (its id, or
// its place in the call and its role) and its size as stored, and nothing
// of the call is stored: not the other messages of a SaveMessages, not a
// turn's input or its other responses, not an update.
func TestMessageTooLargeNamesItAndStoresNothing(t *testing.T) {
	eachBackend(t, func(t *testing.T, s store.Store) {
		m := newMem(t, s, core.Config{})
		if _, err := m.CreateThread(ctx, core.ThreadInput{ID: "t", ResourceID: "r"}); err != nil {
			t.Fatal(err)
		}
		over := strings.Repeat("a", core.DefaultMaxMessageBytes+10) // stored as a JSON string: 2 more bytes
		msgs := []core.Message{userAt("ok1", "t", "r", "fine", T(1)), userAt("", "t", "r", over, T(2)), userAt("ok2", "t", "r", "fine", T(3))}
		_, err := m.SaveMessages(ctx, msgs, nil)
		wantTooLarge(t, err, `SaveMessages: message 2 of 3 (role "user", no id yet) is 4,194,316 bytes encoded as stored (JSON, with 4,194,314 bytes of text), over the limit of 4,194,304 bytes (Options.MaxMessageBytes)`)
		same(t, "after SaveMessages", storedIDs(t, m), nil)

		// Escaping counts: a "<" is stored as "\u003c".
		msgs[1] = userAt("escaped", "t", "r", strings.Repeat("<", 1<<20), T(2))
		_, err = m.SaveMessages(ctx, msgs, nil)
		wantTooLarge(t, err, `message "escaped" (role "user") is 6,291,458 bytes encoded as stored (JSON, with 1,048,576 bytes of text)`)
		same(t, "after the escaped text", storedIDs(t, m), nil)

		turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{core.NewMessage(core.RoleUser, "hi")}})
		if err != nil {
			t.Fatal(err)
		}
		err = turn.Commit(ctx, []core.Message{core.NewMessage(core.RoleAssistant, "fine"), core.NewMessage(core.RoleAssistant, over)})
		wantTooLarge(t, err, `Commit: response message 2 of 2 (role "assistant", no id yet) is 4,194,316 bytes`)
		same(t, "after Commit", storedIDs(t, m), nil)
		_, err = m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Input: []core.Message{core.NewMessage(core.RoleUser, "hi"), core.NewMessage(core.RoleUser, over)}})
		wantTooLarge(t, err, `input message 2 of 2 (role "user", no id yet)`)

		if _, err := m.SaveMessages(ctx, msgs[:1], nil); err != nil {
			t.Fatal(err)
		}
		_, err = m.UpdateMessages(ctx, []core.MessageUpdate{{ID: "ok1", Content: &core.ContentUpdate{Parts: []core.Part{core.TextPart(over)}}}})
		wantTooLarge(t, err, `UpdateMessages: message "ok1" (role "user") is 4,194,316 bytes`)
		if got, err := s.GetMessages(ctx, []string{"ok1"}); err != nil || len(got) != 1 || got[0].Text() != "fine" {
			t.Fatalf("after UpdateMessages: %v %v", got, err)
		}
	})
}
