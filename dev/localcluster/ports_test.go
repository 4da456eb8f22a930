package localcluster

import (
	"fmt"
	"net"
	"slices"
	"testing"
)

func TestFreePorts(t *testing.T) {
	cases := map[string]struct{ n int }{
		"none": {n: 0},
		"one":  {n: 1},
		"six":  {n: 6},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ports, err := freePorts(tc.n)
			if err != nil {
				t.Fatalf("freePorts(%d) = %v", tc.n, err)
			}
			if len(ports) != tc.n {
				t.Fatalf("freePorts(%d) returned %d ports: %v", tc.n, len(ports), ports)
			}
			seen := map[int]bool{}
			for _, p := range ports {
				if p <= 0 || p > 65535 {
					t.Errorf("port %d is not a valid port", p)
				}
				if seen[p] {
					t.Errorf("port %d returned twice: %v", p, ports)
				}
				seen[p] = true
			}
		})
	}
}

// TestFirstBut: the port to avoid is left out wherever it is among the
// ports found free, and the count is kept when it is not among them.
func TestFirstBut(t *testing.T) {
	for name, tc := range map[string]struct {
		ports []int
		avoid int
		want  []int
	}{
		"avoided port first":  {[]int{7, 1, 2, 3}, 7, []int{1, 2, 3}},
		"avoided port last":   {[]int{1, 2, 3, 7}, 7, []int{1, 2, 3}},
		"avoided port absent": {[]int{1, 2, 3, 4}, 7, []int{1, 2, 3}},
		"nothing to avoid":    {[]int{1, 2, 3, 4}, 0, []int{1, 2, 3}},
	} {
		t.Run(name, func(t *testing.T) {
			if got := firstBut(tc.ports, 3, tc.avoid); !slices.Equal(got, tc.want) {
				t.Errorf("firstBut(%v, 3, %d) = %v, want %v", tc.ports, tc.avoid, got, tc.want)
			}
		})
	}
}

func TestIsFree(t *testing.T) {
	taken, err := freePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	if !isFree(taken[0]) {
		t.Errorf("port %d is free, isFree says not", taken[0])
	}
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", taken[0]))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if isFree(taken[0]) {
		t.Errorf("port %d is listened on, isFree says free", taken[0])
	}
}
