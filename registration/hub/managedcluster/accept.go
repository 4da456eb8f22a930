package managedcluster

import (
	"context"
	"fmt"

	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	steps "github.com/corral-dev/corral/internal/reconcile"
)

// addFinalizer puts the cleanup finalizer on the cluster first of all, and
// ends this reconcile; the next one sees it.
func (r *Reconciler) addFinalizer(ctx context.Context, s *scope) (steps.Result, error) {
	if controllerutil.ContainsFinalizer(s.cluster, clusterv1.ManagedClusterFinalizer) {
		return steps.Continue, nil
	}
	controllerutil.AddFinalizer(s.cluster, clusterv1.ManagedClusterFinalizer)
	if err := r.Client.Patch(ctx, s.cluster, client.MergeFromWithOptions(s.original, client.MergeFromWithOptimisticLock{})); err != nil {
		return steps.StopList, fmt.Errorf("adding finalizer: %w", err)
	}
	return steps.StopList, nil
}

// applyNamespace makes sure the cluster namespace exists, labelled with the
// cluster's name.
func (r *Reconciler) applyNamespace(ctx context.Context, s *scope) (steps.Result, error) {
	ns := corev1ac.Namespace(s.cluster.Name).WithLabels(clusterLabels(s.cluster.Name))
	return steps.Continue, r.Client.Apply(ctx, ns, client.FieldOwner(FieldOwner), client.ForceOwnership)
}

// applyRBAC grants the cluster's identity what OCM's agent needs, scoped to
// its own ManagedCluster and namespace.
func (r *Reconciler) applyRBAC(ctx context.Context, s *scope) (steps.Result, error) {
	name := s.cluster.Name
	if err := r.Client.Apply(ctx, clusterRole(name), client.FieldOwner(FieldOwner), client.ForceOwnership); err != nil {
		return steps.Continue, err
	}
	if err := r.Client.Apply(ctx, clusterRoleBinding(name), client.FieldOwner(FieldOwner), client.ForceOwnership); err != nil {
		return steps.Continue, err
	}
	for _, rb := range roleBindings(name) {
		if err := r.Client.Apply(ctx, rb, client.FieldOwner(FieldOwner), client.ForceOwnership); err != nil {
			return steps.Continue, err
		}
	}
	return steps.Continue, nil
}
