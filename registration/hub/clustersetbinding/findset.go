package clustersetbinding

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/corral-dev/corral/internal/steps"
)

// findSet looks up the set the binding names. A terminating set still
// exists: as upstream, the binding stays bound until the set is gone.
func (r *Reconciler) findSet(ctx context.Context, s *scope) (steps.Result, error) {
	name := s.binding.Spec.ClusterSet
	if name == "" {
		return steps.Continue, nil
	}
	err := r.Client.Get(ctx, types.NamespacedName{Name: name}, &clusterv1beta2.ManagedClusterSet{})
	switch {
	case apierrors.IsNotFound(err):
		s.setExists = false
	case err != nil:
		return steps.StopList, fmt.Errorf("getting ManagedClusterSet %s: %w", name, err)
	default:
		s.setExists = true
	}
	ctrl.LoggerFrom(ctx).V(4).Info("Looked up the bound set", "set", name, "exists", s.setExists)
	return steps.Continue, nil
}
