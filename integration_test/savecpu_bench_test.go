package integration_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/tmc/langchaingo/llms"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/postgres"
)

// BenchmarkPostgresSaveCPU: the saves of BenchmarkPostgresSave and
// BenchmarkPostgresSaveUpstream on a one-connection pool, reporting the CPU
// time of a save in this process (client-µs/op) and in its server backend
// (server-µs/op, from /proc when the server runs on this machine). On a
// loaded machine wall time mostly measures waiting for a core; CPU time per
// save compares the work itself.
func BenchmarkPostgresSaveCPU(b *testing.B) {
	one := func(cfg *pgxpool.Config) { cfg.MaxConns = 1 }
	for _, batch := range []int{1, 100} {
		b.Run(fmt.Sprintf("agentmem/batch=%d", batch), func(b *testing.B) {
			s := openPGWith(b, one)
			measureCPU(b, s.Pool(), batch, agentmemSaves(b, s, batch))
		})
		b.Run(fmt.Sprintf("langchaingo/batch=%d", batch), func(b *testing.B) {
			s := openPGWith(b, one)
			measureCPU(b, s.Pool(), batch, upstreamSaves(b, s, batch))
		})
	}
}

// agentmemSaves returns a save of batch new messages into one thread of s,
// through core.Memory, from a caller's buffer refilled for each save.
func agentmemSaves(b *testing.B, s *postgres.Store, batch int) func() error {
	mem, _ := core.New(core.Options{Store: s})
	if _, err := mem.CreateThread(bg, core.ThreadInput{ID: "t", ResourceID: "r"}); err != nil {
		b.Fatal(err)
	}
	msgs := make([]core.Message, batch)
	return func() error {
		for j := range msgs {
			msgs[j] = core.NewMessage(core.RoleUser, "a message of ordinary length for the throughput test")
			msgs[j].ThreadID, msgs[j].ResourceID = "t", "r"
		}
		_, err := mem.SaveMessages(bg, msgs, nil)
		return err
	}
}

// upstreamSaves returns the same save through langchaingo's Postgres chat
// history on s's pool (AddMessage for one message, else AddMessages).
func upstreamSaves(b *testing.B, s *postgres.Store, batch int) func() error {
	h := upstreamHistory(b, s, "history")
	msgs := make([]llms.ChatMessage, batch)
	return func() error {
		for i := range msgs {
			msgs[i] = llms.HumanChatMessage{Content: "a message of ordinary length for the throughput test"}
		}
		if batch == 1 {
			return h.AddMessage(bg, msgs[0])
		}
		return h.AddMessages(bg, msgs)
	}
}

// warmSaves is the number of saves before a save benchmark's timer starts,
// on both sides alike: they prepare the statements and let PostgreSQL settle
// on their generic plans (the first five executions are planned anew), so
// that -benchtime 300x measures saves rather than a connection's first
// steps.
const warmSaves = 20

// measureCPU runs save b.N times (after a warm-up that prepares the
// statements) and reports msgs/s and the CPU per save of this process and
// of pool's one backend.
func measureCPU(b *testing.B, pool *pgxpool.Pool, batch int, save func() error) {
	pid := backendPID(b, pool)
	for i := 0; i < warmSaves; i++ {
		if err := save(); err != nil {
			b.Fatal(err)
		}
	}
	server0, local := backendCPU(pid)
	client0 := processCPU()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := save(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	perOp := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N) }
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "msgs/s")
	b.ReportMetric(perOp(processCPU()-client0), "client-µs/op")
	if server1, _ := backendCPU(pid); local {
		b.ReportMetric(perOp(server1-server0), "server-µs/op")
	}
}

// processCPU is the user and system time of this process.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// backendCPU is the time a server process has run, from the scheduler's
// statistics; false when the process is not on this machine.
func backendCPU(pid int) (time.Duration, bool) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid))
	if err != nil {
		return 0, false
	}
	fields := strings.Fields(string(raw))
	if len(fields) == 0 {
		return 0, false
	}
	ns, err := strconv.ParseInt(fields[0], 10, 64)
	return time.Duration(ns), err == nil
}
