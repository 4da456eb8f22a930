package revision

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/corral-dev/corral/work/hub/validation"
)

// sized is a ConfigMap manifest named name of exactly n bytes (n >= 100).
func sized(t *testing.T, name string, n int) workv1.Manifest {
	t.Helper()
	head := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"namespace":"shop"},"data":{"d":"`, name)
	tail := `"}}`
	pad := n - len(head) - len(tail)
	if pad < 0 {
		t.Fatalf("a manifest of %d bytes is too small for %s", n, name)
	}
	return workv1.Manifest{RawExtension: runtime.RawExtension{Raw: []byte(head + strings.Repeat("x", pad) + tail)}}
}

// shape names each part's manifests by their size, for comparing splits.
func shape(parts [][]workv1.Manifest) [][]int {
	var out [][]int
	for _, p := range parts {
		sizes := make([]int, len(p))
		for i, m := range p {
			sizes[i] = len(m.Raw)
		}
		out = append(out, sizes)
	}
	return out
}

func TestSplit(t *testing.T) {
	cases := map[string]struct {
		sizes  []int
		budget int
		want   [][]int
	}{
		"nothing":                     {budget: 1000},
		"all in one part":             {sizes: []int{300, 300, 400}, budget: 1000, want: [][]int{{300, 300, 400}}},
		"a part fills to the budget":  {sizes: []int{500, 500, 100}, budget: 1000, want: [][]int{{500, 500}, {100}}},
		"a byte over starts a part":   {sizes: []int{500, 501}, budget: 1000, want: [][]int{{500}, {501}}},
		"an object over budget alone": {sizes: []int{100, 1500, 100}, budget: 1000, want: [][]int{{100}, {1500}, {100}}},
		"order kept over parts": {
			sizes: []int{600, 300, 200, 900, 100}, budget: 1000,
			want: [][]int{{600, 300}, {200}, {900, 100}},
		},
		"400 KiB parts of 100 KiB objects": {
			sizes: []int{100 << 10, 100 << 10, 100 << 10, 100 << 10, 100 << 10}, budget: PartBudget,
			want: [][]int{{100 << 10, 100 << 10, 100 << 10, 100 << 10}, {100 << 10}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			in := make([]workv1.Manifest, len(tc.sizes))
			for i, n := range tc.sizes {
				in[i] = sized(t, fmt.Sprintf("m%d", i), n)
			}
			parts, err := Split(in, tc.budget)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, shape(parts)); diff != "" {
				t.Errorf("Split (-want +got):\n%s", diff)
			}
			// The parts hold the manifests, each once, in their order.
			var flat []workv1.Manifest
			for _, p := range parts {
				flat = append(flat, p...)
			}
			if diff := cmp.Diff(in, flat, cmpEmptyManifests); diff != "" {
				t.Errorf("the parts joined differ from the input (-in +joined):\n%s", diff)
			}
		})
	}
}

var cmpEmptyManifests = cmp.FilterValues(func(a, b []workv1.Manifest) bool { return len(a) == 0 && len(b) == 0 }, cmp.Ignore())

func TestSplitRefuses(t *testing.T) {
	cases := map[string]struct {
		sizes  []int
		budget int
		want   string
		is     error
	}{
		"an object no work can carry": {
			sizes: []int{100, MaxWorkBytes + 1}, budget: PartBudget,
			want: fmt.Sprintf("manifest 1 (ConfigMap shop/m1) is %d bytes, over the 500 KiB a ManifestWork may carry", MaxWorkBytes+1),
			is:   ErrTooLarge,
		},
		"a budget of 0": {sizes: []int{100}, budget: 0, want: "a budget of 0 bytes: give a positive one"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			in := make([]workv1.Manifest, len(tc.sizes))
			for i, n := range tc.sizes {
				in[i] = sized(t, fmt.Sprintf("m%d", i), n)
			}
			parts, err := Split(in, tc.budget)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("Split = %d parts, %v; want the error %q", len(parts), err, tc.want)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("Split's error %v is not %v", err, tc.is)
			}
		})
	}
}

// TestSplitPartsPassWorkValidation checks Split against the work hub's
// own validation: MaxWorkBytes is its cap, an object of exactly that size
// is carried, and every part of PartBudget passes it.
func TestSplitPartsPassWorkValidation(t *testing.T) {
	if MaxWorkBytes != validation.MaxManifestsSize {
		t.Fatalf("MaxWorkBytes = %d, the work hub's validation caps at %d", MaxWorkBytes, validation.MaxManifestsSize)
	}
	var in []workv1.Manifest
	for i, n := range []int{MaxWorkBytes, 150 << 10, 150 << 10, 150 << 10, 399 << 10, 1 << 10, 200} {
		in = append(in, sized(t, fmt.Sprintf("m%d", i), n))
	}
	parts, err := Split(in, PartBudget)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 5 {
		t.Errorf("Split made %d parts, want 5: %v", len(parts), shape(parts))
	}
	for i, p := range parts {
		if err := validation.Manifests(p); err != nil {
			t.Errorf("part %d (%v) fails the work hub's validation: %v", i, shape(parts)[i], err)
		}
	}
}
