package postgres

import (
	"testing"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store/storetest"
)

func TestStoredContent(t *testing.T) {
	s := openFresh(t)
	storetest.TestStoredContent(t, s, storetest.Raw{
		Content: func(id string) []byte {
			var c []byte
			if err := s.pool.QueryRow(bg(), `SELECT content::text FROM `+s.q.messages+` WHERE id = $1`, id).Scan(&c); err != nil {
				t.Fatal(err)
			}
			return c
		},
		InsertOld: func(m message.Message, content []byte) {
			if _, err := s.pool.Exec(bg(), `INSERT INTO `+s.q.messages+` (id, thread_id, resource_id, role, content, created_at)
				VALUES ($1, 't', 'r', $2, $3::jsonb, $4)`, m.ID, string(m.Role), string(content), m.CreatedAt); err != nil {
				t.Fatal(err)
			}
		},
		Compact: func() (int, error) { return s.CompactContent(bg(), 1) },
	})
}
