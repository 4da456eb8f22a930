package validation

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/sets"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"

	"github.com/corral-dev/corral/internal/rollout"
)

// ReplicaSet checks a ManifestWorkReplicaSet: its template's manifests,
// at least one placementRef, each named once, and its rollout values.
func ReplicaSet(set *workv1alpha1.ManifestWorkReplicaSet) error {
	if err := Manifests(set.Spec.ManifestWorkTemplate.Workload.Manifests); err != nil {
		return fmt.Errorf("spec.manifestWorkTemplate: %w", err)
	}
	if len(set.Spec.PlacementRefs) == 0 {
		return fmt.Errorf("spec.placementRefs is empty: name at least one Placement in namespace %s", set.Namespace)
	}
	seen := sets.New[string]()
	for i, ref := range set.Spec.PlacementRefs {
		field := fmt.Sprintf("spec.placementRefs[%d]", i)
		if ref.Name == "" {
			return fmt.Errorf("%s has no name: name a Placement in namespace %s", field, set.Namespace)
		}
		if seen.Has(ref.Name) {
			return fmt.Errorf("%s: placement %s is named twice: name each placement once", field, ref.Name)
		}
		seen.Insert(ref.Name)
		if err := rollout.Validate(ref.RolloutStrategy); err != nil {
			return fmt.Errorf("%s.rolloutStrategy: %w", field, err)
		}
	}
	return nil
}
