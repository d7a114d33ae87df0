package sqlite

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/internal/benchdata"
)

func BenchmarkZZShapes(b *testing.B) {
	for _, v := range []string{"bare", "bare-autoinc", "agentmem-plainvalues", "agentmem-shared", "agentmem-shared-nodonothing"} {
		b.Run(v, func(b *testing.B) {
			s, err := Open(bg(), filepath.Join(b.TempDir(), "bench.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			thread(b, s, "t", "r")
			db := s.w
			var q string
			switch v {
			case "bare", "bare-autoinc":
				auto := ""
				if v == "bare-autoinc" {
					auto = " AUTOINCREMENT"
				}
				if _, err := db.Exec(`CREATE TABLE m2 (seq INTEGER PRIMARY KEY` + auto + `, id TEXT NOT NULL UNIQUE, thread_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT NOT NULL, created_at INTEGER NOT NULL, tokens INTEGER NOT NULL);
				CREATE INDEX m2i ON m2 (thread_id, created_at, seq)`); err != nil {
					b.Fatal(err)
				}
				vals := strings.Repeat("(?, ?, ?, ?, ?, ?),", 500)
				q = `INSERT INTO m2 (id, thread_id, role, content, created_at, tokens) VALUES ` + vals[:len(vals)-1]
			case "agentmem-plainvalues":
				vals := strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?, ?),", 500)
				q = `INSERT INTO messages (id, thread_id, resource_id, role, type, content, created_at, tokens, token_encoding) VALUES ` + vals[:len(vals)-1] + ` ON CONFLICT (id) DO NOTHING`
			case "agentmem-shared":
				q = insertNewSQL.text(500)
			case "agentmem-shared-nodonothing":
				q = strings.TrimSuffix(strings.TrimSpace(insertNewSQL.text(500)), "ON CONFLICT (id) DO NOTHING")
			}
			st, err := db.Prepare(q)
			if err != nil {
				b.Fatal(err)
			}
			next := 0
			c0 := processCPU()
			defer func() { b.ReportMetric(float64((processCPU()-c0).Nanoseconds())/float64(b.N), "cpu-ns/op") }()
			b.ResetTimer()
			for range b.N {
				for k := 0; k < 2; k++ {
					var args []any
					if strings.HasPrefix(v, "agentmem-shared") {
						args = append(args, "t", "r", "", "o200k_base")
					}
					for i := 0; i < 500; i++ {
						id, text := fmt.Sprint("m", next), `"`+benchdata.Text(next)+`"`
						switch {
						case strings.HasPrefix(v, "bare"):
							args = append(args, id, "t", "user", text, int64(next), 40)
						case v == "agentmem-plainvalues":
							args = append(args, id, "t", "r", "user", "", text, int64(next), 40, "o200k_base")
						default:
							args = append(args, id, "user", text, int64(next), 40)
						}
						next++
					}
					if k == 0 {
						if _, err := db.Exec("BEGIN IMMEDIATE"); err != nil {
							b.Fatal(err)
						}
					}
					if _, err := st.Exec(args...); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := db.Exec("COMMIT"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
