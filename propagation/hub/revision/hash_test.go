package revision

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

const (
	nsShop   = `{apiVersion: v1, kind: Namespace, metadata: {name: shop}}`
	cmBlue   = `{apiVersion: v1, kind: ConfigMap, metadata: {name: web, namespace: shop}, data: {color: blue, size: L}}`
	cmBlue2  = `{data: {size: L, color: blue}, kind: ConfigMap, apiVersion: v1, metadata: {namespace: shop, name: web}}`
	cmGreen  = `{apiVersion: v1, kind: ConfigMap, metadata: {name: web, namespace: shop}, data: {color: green, size: L}}`
	cmSplitA = `{apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: shop}, data: {x: "1"}}`
)

// hashPattern is the pattern the revision CRD requires of spec.hash.
var hashPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

func TestHash(t *testing.T) {
	// Each case gives two lists of objects and whether they must hash the
	// same.
	cases := map[string]struct {
		a, b []string
		same bool
	}{
		"the same objects in another order": {
			a: []string{nsShop, cmBlue}, b: []string{cmBlue, nsShop}, same: true,
		},
		"the same object with its fields in another order": {
			a: []string{cmBlue}, b: []string{cmBlue2}, same: true,
		},
		"a changed value": {
			a: []string{nsShop, cmBlue}, b: []string{nsShop, cmGreen},
		},
		"an object more": {
			a: []string{nsShop}, b: []string{nsShop, cmSplitA},
		},
		"nothing and something": {
			a: nil, b: []string{nsShop},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ha, hb := mustHash(t, tc.a), mustHash(t, tc.b)
			for _, h := range []string{ha, hb} {
				if !hashPattern.MatchString(h) {
					t.Errorf("Hash = %q, not of the form the revision CRD requires", h)
				}
			}
			if same := ha == hb; same != tc.same {
				t.Errorf("Hash(a) = %s, Hash(b) = %s: same = %t, want %t", ha, hb, same, tc.same)
			}
		})
	}
}

// TestHashPinned pins the encoding: a change to it makes a new revision of
// every propagation on upgrade, so it must be deliberate. The value was
// computed apart from Go: SHA-256 over each object's length (8 bytes, big
// endian) and its JSON with sorted keys, Namespace first.
func TestHashPinned(t *testing.T) {
	const pinned = "sha256:c049d98fa5ebcabc549576496aae58001b91d669ecdc21cf89d53faae72da150"
	got := mustHash(t, []string{nsShop, cmBlue})
	if got != pinned {
		t.Errorf("Hash = %s, want %s: the encoding changed", got, pinned)
	}
}

// TestHashLeavesInputAlone checks that Hash neither reorders nor changes
// the objects it is given.
func TestHashLeavesInputAlone(t *testing.T) {
	objs := []*unstructured.Unstructured{obj(t, cmBlue), obj(t, nsShop)}
	before := ids(objs)
	if _, err := Hash(objs); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, ids(objs)); diff != "" {
		t.Errorf("Hash reordered its input (-before +after):\n%s", diff)
	}
}

func TestManifests(t *testing.T) {
	objs := []*unstructured.Unstructured{obj(t, cmBlue2), obj(t, nsShop)}
	got, err := Manifests(objs)
	if err != nil {
		t.Fatal(err)
	}
	raw := make([]string, len(got))
	for i, m := range got {
		raw[i] = string(m.Raw)
	}
	want := []string{
		`{"apiVersion":"v1","data":{"color":"blue","size":"L"},"kind":"ConfigMap","metadata":{"name":"web","namespace":"shop"}}`,
		`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop"}}`,
	}
	if diff := cmp.Diff(want, raw); diff != "" {
		t.Errorf("Manifests (-want +got):\n%s", diff)
	}
}

func mustHash(t *testing.T, ys []string) string {
	t.Helper()
	objs := make([]*unstructured.Unstructured, len(ys))
	for i, y := range ys {
		objs[i] = obj(t, y)
	}
	h, err := Hash(objs)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestHashWithOverrides(t *testing.T) {
	objs := []*unstructured.Unstructured{obj(t, nsShop), obj(t, cmBlue)}
	plain := mustHash(t, []string{nsShop, cmBlue})
	none, err := HashWithOverrides(objs, nil)
	if err != nil || none != plain {
		t.Errorf("without overrides: %s (%v), want Hash's %s: revisions made before overrides would be made again", none, err, plain)
	}
	snap := func(label string) []v1alpha1.OverrideSnapshot {
		return []v1alpha1.OverrideSnapshot{{Name: "shop/p", Objects: []int32{1},
			Rules: []v1alpha1.OverrideRule{{SetLabels: map[string]string{"tier": label}}}}}
	}
	gold, err := HashWithOverrides(objs, snap("gold"))
	if err != nil {
		t.Fatal(err)
	}
	silver, err := HashWithOverrides(objs, snap("silver"))
	if err != nil {
		t.Fatal(err)
	}
	if gold == plain || gold == silver || !hashPattern.MatchString(gold) {
		t.Errorf("with overrides: %s and %s (without: %s): want two new hashes of the revision's pattern", gold, silver, plain)
	}
}
