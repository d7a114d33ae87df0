package onceset

import (
	"fmt"
	"sync"
	"testing"
)

func TestAddReportsEachKeyOnce(t *testing.T) {
	s := New(3)
	for _, tc := range []struct {
		key  string
		want Outcome
	}{
		{"a", Added}, {"a", Seen}, {"b", Added}, {"c", Added}, {"b", Seen},
		{"d", Filled}, {"e", Refused}, {"d", Refused}, {"a", Seen},
	} {
		if got := s.Add(tc.key); got != tc.want {
			t.Fatalf("Add(%q) = %v, want %v", tc.key, got, tc.want)
		}
	}
	if s.Len() != 3 {
		t.Fatalf("Len = %d, want the limit 3", s.Len())
	}
}

func TestZeroSetRefuses(t *testing.T) {
	var s Set
	if got := s.Add("a"); got != Filled {
		t.Fatalf("first Add on the zero Set = %v, want Filled", got)
	}
	if got := s.Add("b"); got != Refused {
		t.Fatalf("second Add on the zero Set = %v, want Refused", got)
	}
}

func TestConcurrentAddsRecordEachKeyOnce(t *testing.T) {
	s := New(1000)
	var wg sync.WaitGroup
	added := make([]int, 8)
	for w := range added {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				if s.Add(fmt.Sprint(i)) == Added {
					added[w]++
				}
			}
		}()
	}
	wg.Wait()
	total := 0
	for _, n := range added {
		total += n
	}
	if total != 500 || s.Len() != 500 {
		t.Fatalf("added %d, recorded %d, want 500 each", total, s.Len())
	}
}
