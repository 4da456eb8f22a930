package managedcluster

import (
	"context"
	"errors"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/corral-dev/corral/internal/fieldpatch"
	"github.com/corral-dev/corral/internal/steps"
)

// namespaceGoneCheck is how often a terminating cluster namespace is looked
// at besides its watch events.
const namespaceGoneCheck = 5 * time.Second

// deleteRBAC removes the cluster's own RBAC when it is deleted.
func (r *Reconciler) deleteRBAC(ctx context.Context, s *scope) (steps.Result, error) {
	var errs []error
	for _, obj := range rbacObjects(s.cluster.Name) {
		if err := r.Client.Delete(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	return steps.Continue, errors.Join(errs...)
}

// revokeRBAC removes the RBAC of a cluster that is not accepted: only what
// the cache holds, so that a cluster waiting to be accepted costs no
// requests. RBAC the cache has not seen yet brings the cluster back here
// when it does (rbacEvents).
func (r *Reconciler) revokeRBAC(ctx context.Context, s *scope) (steps.Result, error) {
	var errs []error
	for _, obj := range rbacObjects(s.cluster.Name) {
		err := r.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err == nil {
			err = r.Client.Delete(ctx, obj)
		}
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	return steps.Continue, errors.Join(errs...)
}

// deleteNamespace deletes the cluster namespace — everything in it goes with
// it — and stops the list until it is gone. Only a namespace labelled as
// this cluster's is touched.
func (r *Reconciler) deleteNamespace(ctx context.Context, s *scope) (steps.Result, error) {
	ns, err := r.ownNamespace(ctx, s.cluster.Name)
	if err != nil {
		return steps.StopList, err
	}
	if ns == nil {
		return steps.Continue, nil // none, or not ours to delete
	}
	if ns.DeletionTimestamp.IsZero() {
		if err := r.Client.Delete(ctx, ns, client.Preconditions{UID: &ns.UID}); err != nil && !apierrors.IsNotFound(err) {
			return steps.StopList, err
		}
	}
	return steps.Result{Stop: true, RequeueAfter: namespaceGoneCheck}, nil
}

// ownNamespace is the cluster's namespace, nil when there is none or the
// namespace of that name is not the cluster's (not labelled so): never
// emptied nor deleted.
func (r *Reconciler) ownNamespace(ctx context.Context, cluster string) (*corev1.Namespace, error) {
	ns := &corev1.Namespace{}
	err := r.Client.Get(ctx, types.NamespacedName{Name: cluster}, ns)
	if apierrors.IsNotFound(err) || err == nil && ns.Labels[clusterv1.ClusterNameLabelKey] != cluster {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return ns, nil
}

// removeFinalizer lets the ManagedCluster go once its footprint is gone.
func (r *Reconciler) removeFinalizer(ctx context.Context, s *scope) (steps.Result, error) {
	if !controllerutil.ContainsFinalizer(s.cluster, clusterv1.ManagedClusterFinalizer) {
		return steps.Continue, nil
	}
	want := slices.DeleteFunc(slices.Clone(s.cluster.Finalizers), func(f string) bool { return f == clusterv1.ManagedClusterFinalizer })
	err := r.patch(ctx, s, fieldpatch.Field{Path: "/metadata/finalizers", Have: s.cluster.Finalizers, Want: want})
	if apierrors.IsNotFound(err) {
		return steps.Continue, nil
	}
	return patchResult(ctx, s, err)
}
