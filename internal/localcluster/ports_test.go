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

func TestFreePortsBut(t *testing.T) {
	taken, err := freePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		ports, err := freePortsBut(6, taken[0])
		if err != nil {
			t.Fatal(err)
		}
		if len(ports) != 6 || slices.Contains(ports, taken[0]) {
			t.Fatalf("freePortsBut(6, %d) = %v", taken[0], ports)
		}
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
