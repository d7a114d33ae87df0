package sqlite

import (
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/internal/benchdata"
)

// processCPU is the CPU time this process has used, which moves less than
// wall time with the load of a shared machine.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSaveBatch saves batches of 1,000 new messages of one thread (the
// texts of scripts/bench --limits, counted tokens set), SaveMessages and
// SaveMessagesBulk: the store's part of a save, without Memory's token
// counting. ns/op is per batch.
func BenchmarkSaveBatch(b *testing.B) {
	for _, bulk := range []bool{false, true} {
		b.Run(fmt.Sprintf("bulk=%v", bulk), func(b *testing.B) {
			s, err := Open(bg(), filepath.Join(b.TempDir(), "bench.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			thread(b, s, "t", "r")
			save := s.SaveMessages
			if bulk {
				save = s.SaveMessagesBulk
			}
			next := 0
			batch := func() []message.Message {
				msgs := make([]message.Message, 1000)
				for i := range msgs {
					msgs[i] = msgAt(fmt.Sprint("m", next), "t", "r", benchdata.Text(next), at(next))
					msgs[i].Tokens, msgs[i].TokenEncoding = 40, "o200k_base"
					next++
				}
				return msgs
			}
			var cpu time.Duration
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				msgs := batch()
				b.StartTimer()
				c0 := processCPU()
				if _, err := save(bg(), msgs); err != nil {
					b.Fatal(err)
				}
				cpu += processCPU() - c0
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
