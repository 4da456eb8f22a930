package scheduler

import "testing"

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 clusters", 1: "1 cluster", 2: "2 clusters"} {
		if got := Count(n, "cluster"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}
