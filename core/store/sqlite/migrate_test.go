package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/agentmem/agentmem/core/store"
)

// TestObservedResourcesMigration: a file written before resource-scoped
// observations gave their resource a row gets the row from migration 0004.
func TestObservedResourcesMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.db")
	s := openFile(t, path)
	rec := store.ObservationRecord{Key: store.ObservationKey(store.ScopeResource, "", "observed"), Observations: "o"}
	if _, err := s.PutObservations(bg(), rec, 0); err != nil {
		t.Fatal(err)
	}
	// Undo what the migration and the new write path add: the file as 0003 left it.
	if _, err := s.w.Exec(`DELETE FROM resources; ALTER TABLE observations DROP COLUMN buffer; ALTER TABLE observations DROP COLUMN unobserved_message_ids; DELETE FROM schema_migrations WHERE version >= 4`); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openFile(t, path)
	page, err := s.ListResources(bg(), store.ResourceQuery{})
	if err != nil || len(page.Resources) != 1 || page.Resources[0].ID != "observed" {
		t.Fatalf("ListResources after migration = %+v %v", page, err)
	}
}
