package appliedwork

import (
	"testing"

	workv1 "open-cluster-management.io/api/work/v1"
)

func TestWorkName(t *testing.T) {
	hash := HubHash("https://hub:6443")
	if len(hash) != 64 {
		t.Fatalf("hub hash %q is not 64 hex digits", hash)
	}
	if w, ok := WorkName(hash, Name(hash, "app")); !ok || w != "app" {
		t.Errorf("WorkName(Name(app)) = %q, %v", w, ok)
	}
	if _, ok := WorkName(HubHash("https://other:6443"), Name(hash, "app")); ok {
		t.Error("another hub's AppliedManifestWork was taken as this hub's")
	}
}

func TestOrphaned(t *testing.T) {
	kept := workv1.ResourceIdentifier{Resource: "configmaps", Namespace: "ns", Name: "keep"}
	other := workv1.ResourceIdentifier{Resource: "configmaps", Namespace: "ns", Name: "other"}
	selectively := &workv1.DeleteOption{PropagationPolicy: workv1.DeletePropagationPolicyTypeSelectivelyOrphan,
		SelectivelyOrphan: &workv1.SelectivelyOrphan{OrphaningRules: []workv1.OrphaningRule{workv1.OrphaningRule(kept)}}}
	cases := map[string]struct {
		opt    *workv1.DeleteOption
		r      workv1.ResourceIdentifier
		orphan bool
	}{
		"no option: Foreground":        {r: kept},
		"Foreground":                   {opt: &workv1.DeleteOption{PropagationPolicy: workv1.DeletePropagationPolicyTypeForeground}, r: kept},
		"Orphan":                       {opt: &workv1.DeleteOption{PropagationPolicy: workv1.DeletePropagationPolicyTypeOrphan}, r: kept, orphan: true},
		"SelectivelyOrphan, named":     {opt: selectively, r: kept, orphan: true},
		"SelectivelyOrphan, not named": {opt: selectively, r: other},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Orphaned(tc.opt, tc.r); got != tc.orphan {
				t.Errorf("Orphaned = %v, want %v", got, tc.orphan)
			}
		})
	}
}
