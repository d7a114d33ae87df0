package integration_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/core/vector/pgvector"

	"github.com/jackc/pgx/v5"
)

// TestSaveMessagesBulkPgvector: SaveMessagesBulk on PostgreSQL with
// pgvector indexes a large load through the store's bulk path (the
// approximate index built after the rows, so a new one), every message is
// indexed, and recall finds them through the index; SaveMessages of a
// smaller batch later inserts into that index.
func TestSaveMessagesBulkPgvector(t *testing.T) {
	ms := openPG(t, nil)
	vs, err := pgvector.New(bg, ms.Pool(), pgvector.Config{Schema: ms.Schema(), ExactBelow: -1})
	if err != nil {
		t.Fatal(err)
	}
	sr := &core.SemanticRecall{TopK: 1, MessageRange: &core.MessageRange{}, Scope: core.ScopeResource, Mode: vector.SearchVector}
	mem, err := core.New(core.Options{Store: ms, Vector: vs, Embedder: local.NewHashEmbedder(384),
		Config: core.Config{LastMessages: core.NoHistory, SemanticRecall: sr}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mem.CreateThread(bg, core.ThreadInput{ID: "t", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	msgs := func(from, n int) []core.Message {
		var out []core.Message
		for i := from; i < from+n; i++ {
			m := core.NewMessage(core.RoleUser, fmt.Sprintf("parcel w%d went to depot d%d", i, i))
			m.ThreadID, m.ResourceID = "t", "r"
			out = append(out, m)
		}
		return out
	}
	annOID := func() uint32 {
		var oid uint32
		name := pgx.Identifier{ms.Schema(), "vectors_" + strings.ToLower(vector.IndexName(384)) + "_ann"}.Sanitize()
		if err := ms.Pool().QueryRow(bg, "SELECT coalesce(to_regclass($1)::oid, 0)", name).Scan(&oid); err != nil {
			t.Fatal(err)
		}
		return oid
	}
	if _, err := mem.SaveMessages(bg, msgs(0, 10), nil); err != nil {
		t.Fatal(err)
	}
	first := annOID()
	if _, err := mem.SaveMessagesBulk(bg, msgs(10, 1500), nil); err != nil {
		t.Fatal(err)
	}
	bulk := annOID()
	if first == 0 || bulk == 0 || bulk == first {
		t.Fatalf("approximate index %d before the bulk save, %d after; want one built after the load", first, bulk)
	}
	if _, err := mem.SaveMessages(bg, msgs(1510, 100), nil); err != nil {
		t.Fatal(err)
	}
	if annOID() != bulk {
		t.Fatal("SaveMessages of a small batch rebuilt the approximate index")
	}
	if n, err := mem.Unindexed(bg, "r"); err != nil || n != 0 {
		t.Fatalf("unindexed = %d %v", n, err)
	}
	for _, i := range []int{3, 777, 1509, 1600} {
		got := recallTexts(t, mem, core.RecallQuery{ThreadID: "t", ResourceID: "r", VectorSearch: fmt.Sprintf("w%d d%d", i, i)})
		want := fmt.Sprintf("parcel w%d went to depot d%d", i, i)
		if len(got) != 1 || got[0] != want {
			t.Fatalf("recall of message %d = %q", i, got)
		}
	}
}
