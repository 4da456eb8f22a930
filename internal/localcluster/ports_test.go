package localcluster

import "testing"

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
