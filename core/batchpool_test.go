package core_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
)

// SaveMessages reuses its working copy of a batch for the next one; what it
// returned must stay as it was, also with a store that (against the
// store.Messages contract) returns the batch it was given.
func TestSavedBatchesStayIntact(t *testing.T) {
	for _, tc := range []struct {
		name  string
		store core.Store
	}{
		{"copying store", memstore.New()},
		{"store returning its input", &inputReturner{fullStore: memstore.New()}},
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
			for b, saved := range results {
				for i, msg := range saved {
					if want := fmt.Sprintf("b%d-%d", b, i); msg.ID != want || msg.Text() != fmt.Sprintf("text %d-%d", b, i) {
						t.Fatalf("result %d[%d] = %q %q after later saves, want %q", b, i, msg.ID, msg.Text(), want)
					}
				}
			}
		})
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
