package core_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// What SaveMessages returned stays as it was after later saves, also with a
// store that returns the batch it was given, and a decorator that keeps
// every batch it saves finds them intact.
func TestSavedBatchesStayIntact(t *testing.T) {
	recorder := &batchRecorder{Store: memstore.New()}
	for _, tc := range []struct {
		name  string
		store store.Store
	}{
		{"copying store", memstore.New()},
		{"store returning its input", &inputReturner{fullStore: memstore.New()}},
		{"decorator keeping its input", recorder},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMem(t, tc.store, core.Config{})
			if _, err := m.CreateThread(ctx, core.ThreadInput{ID: "t", ResourceID: "r"}); err != nil {
				t.Fatal(err)
			}
			var results [][]core.Message
			for b, size := range []int{3, 1, 5, 2} { // smaller batches reuse larger ones' arrays
				batch := make([]core.Message, size)
				for i := range batch {
					batch[i] = userAt(fmt.Sprintf("b%d-%d", b, i), "t", "r", fmt.Sprintf("text %d-%d", b, i), T(10*b+i))
				}
				saved, err := m.SaveMessages(ctx, batch, nil)
				if err != nil {
					t.Fatal(err)
				}
				results = append(results, saved)
			}
			checkBatches(t, "result", results)
		})
	}
	checkBatches(t, "recorded batch", recorder.kept)
}

// checkBatches fails unless batches[b][i] is the message b-i that
// TestSavedBatchesStayIntact saved.
func checkBatches(t *testing.T, what string, batches [][]core.Message) {
	t.Helper()
	for b, saved := range batches {
		for i, msg := range saved {
			if want := fmt.Sprintf("b%d-%d", b, i); msg.ID != want || msg.Text() != fmt.Sprintf("text %d-%d", b, i) {
				t.Fatalf("%s %d[%d] = %q %q after later saves, want %q", what, b, i, msg.ID, msg.Text(), want)
			}
		}
	}
}

// inputReturner gives SaveMessages' input back as its result, with the
// stored CreatedAt and Seq written into it.
type inputReturner struct{ fullStore }

func (s *inputReturner) SaveMessages(ctx context.Context, msgs []core.Message) ([]core.Message, error) {
	out, err := s.fullStore.SaveMessages(ctx, msgs)
	if err != nil {
		return nil, err
	}
	copy(msgs, out)
	return msgs, nil
}

// batchRecorder keeps every batch it is asked to save, as a test double or
// a logging decorator might.
type batchRecorder struct {
	*memstore.Store
	kept [][]core.Message
}

func (s *batchRecorder) SaveMessages(ctx context.Context, msgs []core.Message) ([]core.Message, error) {
	s.kept = append(s.kept, msgs)
	return s.Store.SaveMessages(ctx, msgs)
}
