package sqlite

import (
	"testing"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/storetest"
)

func TestStoredContent(t *testing.T) {
	s := openTemp(t)
	storetest.TestStoredContent(t, s, storetest.Raw{
		Content: func(id string) []byte {
			var c []byte
			if err := s.w.QueryRow(`SELECT content FROM messages WHERE id = ?`, id).Scan(&c); err != nil {
				t.Fatal(err)
			}
			return c
		},
		InsertOld: func(m message.Message, content []byte) {
			if _, err := s.w.Exec(`INSERT INTO messages (id, thread_id, resource_id, role, content, created_at) VALUES (?, 't', 'r', ?, ?, ?)`,
				m.ID, string(m.Role), string(content), m.CreatedAt.UnixMicro()); err != nil {
				t.Fatal(err)
			}
		},
		Compact:     func() (int, error) { return s.CompactContent(bg(), 1) },
		CompactWith: func(opts store.CompactOptions) (int, error) { return s.CompactContentWith(bg(), opts) },
	})
}
