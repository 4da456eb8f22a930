package division

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// MaxWeight is the largest weight Divide takes: total × weight then fits
// in an int64.
const MaxWeight = math.MaxInt32

// Divide splits total over the clusters of weights (cluster name →
// weight), moving as few replicas as it can from previous (cluster name →
// replicas it had; nil for a first division). A cluster of weight 0 gets
// none; when no weight is above 0, every cluster weighs the same. No
// cluster: no shares. A negative total or weight, or a weight above
// MaxWeight, is an error.
func Divide(total int32, weights map[string]int64, previous map[string]int32) (map[string]int32, error) {
	if total < 0 {
		return nil, fmt.Errorf("cannot divide %d replicas: the total must not be negative", total)
	}
	var sum int64
	for name, w := range weights {
		if w < 0 || w > MaxWeight {
			return nil, fmt.Errorf("cluster %s: weight %d, want 0 to %d", name, w, MaxWeight)
		}
		sum += w
	}
	if len(weights) == 0 {
		return map[string]int32{}, nil
	}
	equal := sum == 0
	if equal {
		sum = int64(len(weights))
	}
	type quota struct {
		name      string
		floor     int32
		remainder int64 // the quota's fraction, × sum
		runsMore  bool  // previous share above floor
	}
	quotas := make([]quota, 0, len(weights))
	shares := make(map[string]int32, len(weights))
	left := int64(total)
	for name, w := range weights {
		if equal {
			w = 1
		}
		q := quota{name: name, floor: int32(int64(total) * w / sum), remainder: int64(total) * w % sum}
		q.runsMore = previous[name] > q.floor
		shares[name] = q.floor
		left -= int64(q.floor)
		if q.remainder > 0 {
			quotas = append(quotas, q)
		}
	}
	// The fractions add up to left, each below one: left <= len(quotas).
	slices.SortFunc(quotas, func(a, b quota) int {
		if a.runsMore != b.runsMore {
			if a.runsMore {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(b.remainder, a.remainder); c != 0 {
			return c
		}
		return cmp.Compare(a.name, b.name)
	})
	for _, q := range quotas[:left] {
		shares[q.name]++
	}
	return shares, nil
}

// Moved is how many replicas going from previous to next starts: the sum
// of the shares' increases.
func Moved(previous, next map[string]int32) int64 {
	var n int64
	for name, s := range next {
		if d := int64(s) - int64(previous[name]); d > 0 {
			n += d
		}
	}
	return n
}
