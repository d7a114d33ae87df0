package thread

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/internal/indexing"
	"github.com/agentmem/agentmem/core/internal/recall"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
)

var bg = context.Background()

// index records what the keeper asks of semantic recall.
type index struct {
	unindexed []string // ids whose vectors were deleted
	deleted   []string // "thread@resource" of deleted thread vectors
	changes   int      // owner changes begun
	ended     int      // owner changes ended
}

func (x *index) SaveIndexed(_ context.Context, _ *store.Checked, _ *recall.Settings, _ []message.Message, _ *indexing.Prior,
	save func() ([]message.Message, error)) ([]message.Message, *indexing.Embedded, error) {
	saved, err := save()
	return saved, nil, err
}

func (x *index) OwnerChange() func() { x.changes++; return func() { x.ended++ } }

func (x *index) Unindex(_ context.Context, msgs []message.Message) {
	for _, m := range msgs {
		x.unindexed = append(x.unindexed, m.ID)
	}
}

func (x *index) DeleteThreadVectors(_ context.Context, threadID string, resources ...string) error {
	for _, r := range resources {
		x.deleted = append(x.deleted, threadID+"@"+r)
	}
	return nil
}

type locks struct{}

func (locks) Lock(context.Context, string) (func(), error) { return func() {}, nil }

// ticks stamps a second apart from a fixed time.
type ticks struct{ n atomic.Int64 }

func (c *ticks) Stamp() time.Time {
	return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(c.n.Add(1)) * time.Second)
}

// newKeeper returns a Keeper over a memstore, with ids "id1", "id2", …
func newKeeper(t *testing.T, vectors bool) (*Keeper, *index) {
	t.Helper()
	var n atomic.Int64
	newID := func() string { return fmt.Sprintf("id%d", n.Add(1)) }
	clock := &ticks{}
	x := &index{}
	k := New(Deps{Store: store.Check(memstore.New()), Clock: clock, NewID: newID, Index: x, Observer: locks{}, Vectors: vectors,
		Count: func(m *message.Message) { m.Tokens, m.TokenEncoding = len(m.Text()), "bytes" },
		Rules: Rules{MaxMessageBytes: 1 << 10, MaxTitleBytes: 32, NewID: newID, Clock: clock}})
	return k, x
}

// seed creates thread id of resource with a user message of each text.
func seed(t *testing.T, k *Keeper, id, resource string, texts ...string) {
	t.Helper()
	if _, err := k.Create(bg, store.Thread{ID: id, ResourceID: resource, Title: "T"}); err != nil {
		t.Fatal(err)
	}
	var msgs []message.Message
	for _, text := range texts {
		m := message.NewMessage(message.RoleUser, text)
		m.ThreadID, m.ResourceID = id, resource
		msgs = append(msgs, m)
	}
	if _, _, err := k.Save(bg, msgs, nil, false); err != nil {
		t.Fatal(err)
	}
}

func TestRulesNameTheMessage(t *testing.T) {
	k, _ := newKeeper(t, false)
	big := message.NewMessage(message.RoleUser, strings.Repeat("x", 2000))
	err := k.d.Rules.ValidateMessage("Op", &big, At("input", 1, 3))
	if !errors.Is(err, memerr.ErrMessageTooLarge) || !strings.Contains(err.Error(), "input message 2 of 3") || !strings.Contains(err.Error(), "1,024 bytes") {
		t.Fatalf("oversized message: %v", err)
	}
	odd := message.Message{ID: "m1", Role: "robot"}
	if err := k.d.Rules.ValidateMessage("Op", &odd, Place{}); !errors.Is(err, memerr.ErrInvalidMessage) || !strings.Contains(err.Error(), `message "m1"`) {
		t.Fatalf("invalid role: %v", err)
	}
	if err := k.d.Rules.CheckTitle("Op", strings.Repeat("t", 33)); !errors.Is(err, memerr.ErrTooLarge) {
		t.Fatalf("long title: %v", err)
	}
}

func TestSaveAssignsIDsAndDropsSystemMessages(t *testing.T) {
	k, _ := newKeeper(t, false)
	if _, err := k.Create(bg, store.Thread{ID: "t", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	msgs := []message.Message{message.NewMessage(message.RoleSystem, "sys"), message.NewMessage(message.RoleUser, "hello")}
	for i := range msgs {
		msgs[i].ThreadID, msgs[i].ResourceID = "t", "r"
	}
	saved, _, err := k.Save(bg, msgs, nil, false)
	if err != nil || len(saved) != 1 || saved[0].ID == "" || saved[0].Tokens != 5 || saved[0].CreatedAt.IsZero() {
		t.Fatalf("saved %+v, %v", saved, err)
	}
	msgs[1].ThreadID = ""
	if _, _, err := k.Save(bg, msgs, nil, false); !errors.Is(err, memerr.ErrMissingThreadID) {
		t.Fatalf("a message without a thread: %v", err)
	}
}

func TestUpdateReindexesWhatChanged(t *testing.T) {
	k, x := newKeeper(t, true)
	seed(t, k, "t", "r", "one", "two")
	page, _ := k.d.Store.ListMessages(bg, store.MessageQuery{ThreadID: "t", PerPage: store.PerPageAll})
	one, two := page.Messages[0].ID, page.Messages[1].ID
	role := message.RoleAssistant
	saved, reindex, err := k.Update(bg, []Update{
		{ID: one, Content: &ContentUpdate{Metadata: map[string]any{"a": 1, "b": 2}}},
		{ID: one, Content: &ContentUpdate{Metadata: map[string]any{"b": nil}}},
		{ID: two, Role: &role},
		{ID: "unknown", Role: &role},
	}, true)
	if err != nil || len(saved) != 2 {
		t.Fatalf("saved %d, %v", len(saved), err)
	}
	if len(reindex) != 1 || reindex[0].ID != one || len(reindex[0].Content.Metadata) != 1 || reindex[0].Content.Metadata["a"] == nil {
		t.Fatalf("reindex %+v", reindex)
	}
	if !slices.Equal(x.unindexed, []string{one}) || x.changes != 0 {
		t.Fatalf("unindexed %v, owner changes %d", x.unindexed, x.changes)
	}
}

func TestCloneRecordsLineage(t *testing.T) {
	k, _ := newKeeper(t, false)
	seed(t, k, "src", "r", "a", "b", "c")
	clone, copies, err := k.Clone(bg, CloneOptions{SourceThreadID: "src", MessageLimit: 2})
	if err != nil || len(copies) != 2 || clone.Title != "Clone of T" {
		t.Fatalf("clone %+v, %d copies, %v", clone, len(copies), err)
	}
	info, ok := CloneInfoOf(clone)
	if !ok || info.SourceThreadID != "src" || info.ClonedAt.IsZero() || info.LastMessageID == "" {
		t.Fatalf("clone record %+v, %v", info, ok)
	}
	again, _, err := k.Clone(bg, CloneOptions{SourceThreadID: clone.ID, NewThreadID: "again"})
	if err != nil {
		t.Fatal(err)
	}
	chain, err := k.CloneHistory(bg, again.ID)
	if err != nil || len(chain) != 3 || chain[0].ID != "src" || chain[2].ID != "again" {
		t.Fatalf("history %v, %v", chain, err)
	}
	direct, err := k.Clones(bg, "src", "")
	if err != nil || len(direct) != 1 || direct[0].ID != clone.ID {
		t.Fatalf("clones %v, %v", direct, err)
	}
	if _, _, err := k.Clone(bg, CloneOptions{SourceThreadID: "src", NewThreadID: "again"}); !errors.Is(err, memerr.ErrThreadExists) {
		t.Fatalf("clone onto an existing thread: %v", err)
	}
}

func TestMoveLeavesTheVectorsToTheCaller(t *testing.T) {
	k, x := newKeeper(t, true)
	seed(t, k, "t", "old", "hello")
	mv, err := k.Move(bg, "t", "new")
	if err != nil || !mv.Reindex || mv.Thread.ResourceID != "new" {
		t.Fatalf("move %+v, %v", mv, err)
	}
	if got := PendingMoveSources(mv.Thread); !slices.Equal(got, []string{"old"}) {
		t.Fatalf("pending sources %v", got)
	}
	th, err := mv.Finish(bg)
	mv.End()
	if err != nil || len(PendingMoveSources(th)) != 0 {
		t.Fatalf("finished %+v, %v", th, err)
	}
	if !slices.Equal(x.deleted, []string{"t@old", "t@old"}) || x.changes != 1 || x.ended != 1 {
		t.Fatalf("vectors deleted %v, owner changes %d/%d", x.deleted, x.changes, x.ended)
	}
}

func TestPendingMoveSourcesReadsBothRecords(t *testing.T) {
	th := store.Thread{Metadata: map[string]any{
		moveKey:       map[string]any{"fromResourceIds": []any{"a", "b"}},
		legacyMoveKey: map[string]any{"fromResourceIds": []string{"b", "c"}},
	}}
	if got := PendingMoveSources(th); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("sources %v", got)
	}
	if patch := moveDone(th.Metadata); len(patch) != 2 {
		t.Fatalf("patch %v", patch)
	}
	// An application's own "move" key of another shape is not a move record.
	th.Metadata[legacyMoveKey] = map[string]any{"fromResourceIds": []any{"c"}, "note": "x"}
	if got := PendingMoveSources(th); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("sources %v", got)
	}
	if patch := moveDone(th.Metadata); len(patch) != 1 {
		t.Fatalf("patch %v", patch)
	}
}
