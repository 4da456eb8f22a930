package managedcluster

import (
	"context"
	"fmt"
	"slices"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/corral-dev/corral/internal/fieldpatch"
	steps "github.com/corral-dev/corral/internal/reconcile"
)

// addFinalizer puts the cleanup finalizer on the cluster before anything
// else is made for it. The rest of the reconcile goes on with the patched
// cluster rather than waiting for the next one: a reconcile fewer per new
// cluster.
func (r *Reconciler) addFinalizer(ctx context.Context, s *scope) (steps.Result, error) {
	if controllerutil.ContainsFinalizer(s.cluster, clusterv1.ManagedClusterFinalizer) {
		return steps.Continue, nil
	}
	return r.patchFinalizers(ctx, s, append(slices.Clone(s.cluster.Finalizers), clusterv1.ManagedClusterFinalizer))
}

// patchFinalizers sets the cluster's finalizers to want if they are still
// what the reconcile read. It tests the finalizers rather than the
// resourceVersion: the taint controller or an admin writing the cluster at
// the same moment (a cluster that just joined) does not make it fail, and
// nobody else's finalizer is lost.
func (r *Reconciler) patchFinalizers(ctx context.Context, s *scope, want []string) (steps.Result, error) {
	patch, err := fieldpatch.Set("/metadata/finalizers", s.cluster.Finalizers, want)
	if err != nil {
		return steps.StopList, err
	}
	err = r.Client.Patch(ctx, s.cluster, patch)
	if fieldpatch.Changed(err) {
		// The finalizers changed meanwhile (or the cluster is being
		// deleted): look again once the cache has caught up.
		ctrl.LoggerFrom(ctx).V(1).Info("Finalizers changed meanwhile; looking again", "cluster", s.cluster.Name, "err", err)
		return steps.Result{Stop: true, RequeueAfter: finalizerRetry}, nil
	}
	if err != nil {
		return steps.StopList, fmt.Errorf("patching finalizers: %w", err)
	}
	s.original = s.cluster.DeepCopy()
	return steps.Continue, nil
}

// finalizerRetry is how soon a finalizer patch whose test failed is tried
// again.
const finalizerRetry = 100 * time.Millisecond

// applyNamespace makes sure the cluster namespace exists, labelled with the
// cluster's name.
func (r *Reconciler) applyNamespace(ctx context.Context, s *scope) (steps.Result, error) {
	return steps.Continue, r.ensure(ctx, corev1ac.Namespace(s.cluster.Name).WithLabels(clusterLabels(s.cluster.Name)))
}

// applyRBAC grants the cluster's identity what OCM's agent needs, scoped to
// its own ManagedCluster and namespace.
func (r *Reconciler) applyRBAC(ctx context.Context, s *scope) (steps.Result, error) {
	name := s.cluster.Name
	if err := r.ensure(ctx, clusterRole(name)); err != nil {
		return steps.Continue, err
	}
	if err := r.ensure(ctx, clusterRoleBinding(name)); err != nil {
		return steps.Continue, err
	}
	for _, rb := range roleBindings(name) {
		if err := r.ensure(ctx, rb); err != nil {
			return steps.Continue, err
		}
	}
	return steps.Continue, nil
}
