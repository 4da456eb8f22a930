package managedcluster

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/corral-dev/corral/internal/fieldpatch"
	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/registration/common"
	"github.com/corral-dev/corral/registration/hub/taint"
)

// addFinalizer puts the cleanup finalizer on the cluster before anything
// else is made for it, and with it the cluster's first availability taint
// (package taint leaves a cluster without the finalizer to this write): a
// new cluster is written once, not twice. The rest of the reconcile goes on
// with the patched cluster rather than waiting for the next one.
func (r *Reconciler) addFinalizer(ctx context.Context, s *scope) (steps.Result, error) {
	if controllerutil.ContainsFinalizer(s.cluster, clusterv1.ManagedClusterFinalizer) {
		return steps.Continue, nil
	}
	finalizers := fieldpatch.Field{Path: "/metadata/finalizers", Have: s.cluster.Finalizers,
		Want: append(slices.Clone(s.cluster.Finalizers), clusterv1.ManagedClusterFinalizer)}
	accepted := s.cluster.Spec.HubAcceptsClient
	taints := taint.Desired(s.cluster.Spec.Taints, s.cluster.Status.Conditions, metav1.NewTime(r.Clock.Now()))
	var err error
	written := false
	if !equality.Semantic.DeepEqual(taints, s.cluster.Spec.Taints) {
		err = r.patch(ctx, s, finalizers, fieldpatch.Field{Path: "/spec/taints", Have: s.cluster.Spec.Taints, Want: taints})
		written = err == nil
	}
	// The taints may not be what the cache shows (changed, or stored in
	// another form): then the finalizer alone, and the taint controller
	// takes the taints from there.
	if !written && (err == nil || fieldpatch.Changed(err)) {
		err = r.patch(ctx, s, finalizers)
	}
	if err == nil && s.cluster.Spec.HubAcceptsClient != accepted {
		// The cluster, as the patch returned it, was accepted or denied
		// since this reconcile chose its steps: the next one acts on it.
		return steps.Result{Stop: true, RequeueAfter: changedRetry}, nil
	}
	return patchResult(ctx, s, err)
}

// patch writes fields of the cluster, each tested against what the
// reconcile read rather than the resourceVersion: the taint controller or
// an admin writing the cluster at the same moment (a cluster that just
// joined) does not make it fail, and nobody else's finalizer or taint is
// lost.
func (r *Reconciler) patch(ctx context.Context, s *scope, fields ...fieldpatch.Field) error {
	patch, err := fieldpatch.Fields(fields...)
	if err != nil {
		return err
	}
	if err := r.Client.Patch(ctx, s.cluster, patch); err != nil {
		return err
	}
	s.original = s.cluster.DeepCopy()
	return nil
}

// patchResult is what a patch of the cluster means for the reconcile: go
// on, look again shortly when the cluster had changed meanwhile (its
// tested fields or, for a resourceVersion-guarded patch, anything; or it
// is being deleted) and the cache has to catch up, or fail.
func patchResult(ctx context.Context, s *scope, err error) (steps.Result, error) {
	switch {
	case err == nil:
		return steps.Continue, nil
	case fieldpatch.Changed(err) || apierrors.IsConflict(err):
		ctrl.LoggerFrom(ctx).V(1).Info("The cluster changed meanwhile; looking again", "cluster", s.cluster.Name, "err", err)
		return steps.Result{Stop: true, RequeueAfter: changedRetry}, nil
	}
	return steps.StopList, fmt.Errorf("patching the cluster: %w", err)
}

// changedRetry is how soon a patch that found the cluster changed is tried
// again.
const changedRetry = 100 * time.Millisecond

// applyNamespace makes sure the cluster namespace exists, labelled with the
// cluster's name. A namespace of that name which is not the cluster's (no
// such label) is never taken over: the cluster's agent would get rights in
// it, and deleting the cluster would delete it. Nor is a cluster with a
// reserved name accepted (see common.ReservedClusterName). Either is
// refused in the cluster's HubAcceptedManagedCluster condition.
func (r *Reconciler) applyNamespace(ctx context.Context, s *scope) (steps.Result, error) {
	name := s.cluster.Name
	if why := common.ReservedClusterName(name); why != "" {
		return r.refuse(ctx, s, why)
	}
	ns := &corev1.Namespace{}
	err := r.Client.Get(ctx, client.ObjectKey{Name: name}, ns) // the cache holds cluster namespaces only
	switch {
	case apierrors.IsNotFound(err):
		obj, err := Object(r.Client.Scheme(), Namespace(name))
		if err != nil {
			return steps.StopList, err
		}
		if err = r.Client.Create(ctx, obj, client.FieldOwner(FieldOwner)); !apierrors.IsAlreadyExists(err) {
			return steps.Continue, err
		}
		// Not a cluster namespace as far as the cache knows: another's,
		// or this cluster's and too new for the cache.
		if err := r.live().Get(ctx, client.ObjectKey{Name: name}, ns); err != nil {
			return steps.StopList, err
		}
	case err != nil:
		return steps.StopList, err
	}
	if ns.Labels[clusterv1.ClusterNameLabelKey] != name {
		return r.refuse(ctx, s, fmt.Sprintf("namespace %s exists and is not this cluster's (it has no label %s=%s): "+
			"choose another cluster name, or label the namespace to give it to the cluster", name, clusterv1.ClusterNameLabelKey, name))
	}
	if !ns.DeletionTimestamp.IsZero() {
		// Nothing can be made in it: it is made anew once it is gone (its
		// deletion brings the cluster back).
		ctrl.LoggerFrom(ctx).V(1).Info("The cluster namespace is being deleted; making it anew once it is gone", "cluster", name)
		return steps.Result{Stop: true, RequeueAfter: contentCheck}, nil
	}
	return steps.Continue, nil
}

// refuse writes why the cluster is not accepted and stops the list.
func (r *Reconciler) refuse(ctx context.Context, s *scope, why string) (steps.Result, error) {
	ctrl.LoggerFrom(ctx).V(1).Info("Not accepting the cluster", "cluster", s.cluster.Name, "reason", why)
	s.refused = why
	res, err := r.updateStatus(ctx, s)
	res.Stop = true
	return res, err
}

// live reads past the cache.
func (r *Reconciler) live() client.Reader {
	if r.Live != nil {
		return r.Live
	}
	return r.Client
}

// Namespace is the cluster namespace of an accepted cluster.
func Namespace(cluster string) *corev1ac.NamespaceApplyConfiguration {
	return corev1ac.Namespace(cluster).WithLabels(clusterLabels(cluster))
}

// applyRBAC grants the cluster's identity what OCM's agent needs, scoped to
// its own ManagedCluster and namespace.
func (r *Reconciler) applyRBAC(ctx context.Context, s *scope) (steps.Result, error) {
	for _, obj := range RBAC(s.cluster.Name) {
		if err := r.ensure(ctx, obj); err != nil {
			return steps.Continue, err
		}
	}
	return steps.Continue, nil
}
