package postgres

import (
	"testing"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
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
		Compact:     func() (int, error) { return s.CompactContent(bg(), 1) },
		CompactWith: func(opts store.CompactOptions) (int, error) { return s.CompactContentWith(bg(), opts) },
	})
}

// CompactContentWith reports its progress in heap blocks: over a table of
// several blocks, a share below the whole after the first batch, never
// going back, and the whole table at the end with every row counted.
func TestCompactProgress(t *testing.T) {
	s := openFresh(t)
	if _, err := s.SaveThread(bg(), store.Thread{ID: "t", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	const rows = 200
	if _, err := s.pool.Exec(bg(), `INSERT INTO `+s.q.messages+` (id, thread_id, resource_id, role, content, created_at)
		SELECT 'm' || i, 't', 'r', 'user', jsonb_build_object('format', 2, 'parts', jsonb_build_array(jsonb_build_object('type', 'text', 'text', repeat('x', 200)))), now()
		FROM generate_series(1, $1::int) AS i`, rows); err != nil {
		t.Fatal(err)
	}
	var reports []store.CompactProgress
	n, err := s.CompactContentWith(bg(), store.CompactOptions{Batch: rowsPerBlock, Progress: func(p store.CompactProgress) {
		reports = append(reports, p)
	}})
	if err != nil || n != rows {
		t.Fatalf("CompactContentWith = %d, %v; want %d", n, err, rows)
	}
	if len(reports) < 3 || reports[0].Fraction >= 1 || reports[0].Fraction <= 0 {
		t.Fatalf("%d progress reports, the first %+v; want several, the first a share of the table", len(reports), reports[0])
	}
	for i := 1; i < len(reports); i++ {
		if reports[i].Fraction < reports[i-1].Fraction || reports[i].Rewritten < reports[i-1].Rewritten {
			t.Fatalf("progress went from %+v to %+v", reports[i-1], reports[i])
		}
	}
	if last := reports[len(reports)-1]; last.Fraction != 1 || last.Rewritten != rows {
		t.Fatalf("last progress %+v, want the whole table and %d rows", last, rows)
	}
}
