package division

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDivide(t *testing.T) {
	for name, tc := range map[string]struct {
		total    int32
		weights  map[string]int64
		previous map[string]int32
		want     map[string]int32
	}{
		"2:1 divides 6 as 4 and 2": {total: 6, weights: map[string]int64{"cluster1": 2, "cluster2": 1},
			want: map[string]int32{"cluster1": 4, "cluster2": 2}},
		"equal weights, the extra to the first name": {total: 5, weights: map[string]int64{"a": 1, "b": 1},
			want: map[string]int32{"a": 3, "b": 2}},
		"the extra stays where it runs": {total: 5, weights: map[string]int64{"a": 1, "b": 1}, previous: map[string]int32{"a": 2, "b": 3},
			want: map[string]int32{"a": 2, "b": 3}},
		"the larger fraction first": {total: 10, weights: map[string]int64{"a": 1, "b": 2, "c": 4},
			want: map[string]int32{"a": 1, "b": 3, "c": 6}},
		"weight 0 gets none": {total: 4, weights: map[string]int64{"a": 1, "b": 0},
			want: map[string]int32{"a": 4, "b": 0}},
		"no weight above 0: equal": {total: 4, weights: map[string]int64{"a": 0, "b": 0},
			want: map[string]int32{"a": 2, "b": 2}},
		"no clusters": {total: 4, want: map[string]int32{}},
		"0 replicas":  {total: 0, weights: map[string]int64{"a": 1}, want: map[string]int32{"a": 0}},
		"fewer replicas than clusters": {total: 2, weights: map[string]int64{"a": 1, "b": 1, "c": 1},
			want: map[string]int32{"a": 1, "b": 1, "c": 0}},
		"a cluster leaving: its replicas go, the others keep theirs": {total: 6, weights: map[string]int64{"a": 1, "b": 1},
			previous: map[string]int32{"a": 2, "b": 2, "gone": 2}, want: map[string]int32{"a": 3, "b": 3}},
		"the largest weight": {total: maxTotal, weights: map[string]int64{"a": MaxWeight, "b": MaxWeight},
			want: map[string]int32{"a": maxTotal/2 + 1, "b": maxTotal / 2}},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := Divide(tc.total, tc.weights, tc.previous)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Divide(%d, %v, %v) (-want +got):\n%s", tc.total, tc.weights, tc.previous, diff)
			}
		})
	}
}

const maxTotal = 1<<31 - 1

func TestDivideRefuses(t *testing.T) {
	for name, tc := range map[string]struct {
		total   int32
		weights map[string]int64
	}{
		"a negative total":     {total: -1, weights: map[string]int64{"a": 1}},
		"a negative weight":    {total: 1, weights: map[string]int64{"a": -1}},
		"a weight above limit": {total: 1, weights: map[string]int64{"a": MaxWeight + 1}},
	} {
		t.Run(name, func(t *testing.T) {
			if got, err := Divide(tc.total, tc.weights, nil); err == nil {
				t.Errorf("Divide(%d, %v) = %v, want an error", tc.total, tc.weights, got)
			}
		})
	}
}

// TestDivideProperties checks, over random divisions, that the shares
// add up to the total, that each is its quota rounded down or up (up
// only with a fraction), and that no such division starts fewer replicas
// from the previous shares (brute force over which quotas round up).
func TestDivideProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		n := 1 + r.IntN(7)
		total := int32(r.IntN(50))
		weights := map[string]int64{}
		previous := map[string]int32{}
		for c := range n {
			name := fmt.Sprintf("c%d", c)
			weights[name] = int64(r.IntN(5))
			if r.IntN(2) == 0 {
				previous[name] = int32(r.IntN(20))
			}
		}
		if r.IntN(4) == 0 {
			previous["gone"] = int32(r.IntN(10))
		}
		got, err := Divide(total, weights, previous)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		lo, hi := bounds(total, weights)
		var sum int64
		for name, s := range got {
			sum += int64(s)
			if s < lo[name] || s > hi[name] {
				t.Fatalf("case %d: Divide(%d, %v) gave %s %d, want %d to %d", i, total, weights, name, s, lo[name], hi[name])
			}
		}
		if sum != int64(total) || len(got) != len(weights) {
			t.Fatalf("case %d: Divide(%d, %v) = %v: %d replicas over %d clusters, want %d over %d", i, total, weights, got, sum, len(got), total, len(weights))
		}
		if best := fewestMoved(total, lo, hi, previous); Moved(previous, got) != best {
			t.Fatalf("case %d: Divide(%d, %v, %v) = %v starts %d replicas, a division starts %d", i, total, weights, previous, got, Moved(previous, got), best)
		}
		again, _ := Divide(total, weights, previous)
		if !maps.Equal(got, again) {
			t.Fatalf("case %d: two runs differ: %v and %v", i, got, again)
		}
	}
}

// bounds are each cluster's quota rounded down and up.
func bounds(total int32, weights map[string]int64) (lo, hi map[string]int32) {
	var sum int64
	for _, w := range weights {
		sum += w
	}
	equal := sum == 0
	if equal {
		sum = int64(len(weights))
	}
	lo, hi = map[string]int32{}, map[string]int32{}
	for name, w := range weights {
		if equal {
			w = 1
		}
		lo[name] = int32(int64(total) * w / sum)
		hi[name] = lo[name]
		if int64(total)*w%sum != 0 {
			hi[name]++
		}
	}
	return lo, hi
}

// fewestMoved is the fewest replicas any division within lo and hi that
// adds up to total starts from previous.
func fewestMoved(total int32, lo, hi map[string]int32, previous map[string]int32) int64 {
	names := slices.Sorted(maps.Keys(lo))
	best := int64(-1)
	for mask := range 1 << len(names) {
		next := map[string]int32{}
		var sum int64
		ok := true
		for i, name := range names {
			next[name] = lo[name]
			if mask&(1<<i) != 0 {
				if hi[name] == lo[name] {
					ok = false
					break
				}
				next[name] = hi[name]
			}
			sum += int64(next[name])
		}
		if !ok || sum != int64(total) {
			continue
		}
		if m := Moved(previous, next); best < 0 || m < best {
			best = m
		}
	}
	return best
}
