package observe

import "testing"

// The cases of Mastra's calculateDynamicThreshold tests, with its 30k:40k
// example budget.
func TestThreshold(t *testing.T) {
	cases := []struct {
		name         string
		observations int
		shared       bool
		want         int
	}{
		{"returns the threshold as-is without a shared budget", 10000, false, 30000},
		{"expands into unused observation space for range thresholds", 0, true, 70000},
		{"shrinks as observations grow", 10000, true, 60000},
		{"is back at the base once observations fill their budget", 40000, true, 30000},
		{"never goes below the base threshold", 50000, true, 30000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Threshold(30000, 40000, c.observations, c.shared); got != c.want {
				t.Fatalf("Threshold(30000, 40000, %d, %v) = %d, want %d", c.observations, c.shared, got, c.want)
			}
		})
	}
}
