package managedcluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/fieldpatch"
	"github.com/corral-dev/corral/internal/steps"
)

// DefaultWorkAddOns are the ManagedClusterAddOns whose agents apply a
// cluster's ManifestWorks, unless Reconciler.WorkAddOns says otherwise:
// corral's work addon.
var DefaultWorkAddOns = []string{"work"}

// contentCheck is how often what is left in a deleted cluster's namespace
// is looked at again.
const contentCheck = 3 * time.Second

// ReasonReleased is the reason of the Warning event that says a deleted
// cluster's works were let go without their agent (see releaseWorks).
const ReasonReleased = "ManifestWorksReleased"

// stage is one part of a deleted cluster's namespace, all gone before the
// next is deleted.
type stage struct {
	// what names it in the Deleting condition.
	what string
	list schema.GroupVersionKind
	// holds says whether an object of that kind is of this stage.
	holds func(name string) bool
}

// worksStage is the index of the ManifestWorks' stage in stages.
const worksStage = 1

// stages are, in order: the ManagedClusterAddOns (as OCM deletes them
// first, their hub halves may remove their agents through ManifestWorks),
// except those of the work addons; the ManifestWorks, while the work
// addon's agent and the cluster's RBAC are still there to remove what they
// applied; then the work addons.
func (r *Reconciler) stages() []stage {
	workAddOns := r.WorkAddOns
	if workAddOns == nil {
		workAddOns = DefaultWorkAddOns
	}
	addOns := listOf(addonv1alpha1.GroupVersion, "ManagedClusterAddOnList")
	// In the order of the stage indexes below.
	return []stage{
		{what: "ManagedClusterAddOns", list: addOns, holds: func(name string) bool { return !slices.Contains(workAddOns, name) }},
		{what: "ManifestWorks", list: listOf(workv1.GroupVersion, "ManifestWorkList"), holds: func(string) bool { return true }},
		{what: "work ManagedClusterAddOns", list: addOns, holds: func(name string) bool { return slices.Contains(workAddOns, name) }},
	}
}

func listOf(gv metav1.GroupVersion, kind string) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: kind}
}

// deleteContent deletes the ManagedClusterAddOns and ManifestWorks in a
// deleted cluster's namespace, a stage at a time (see stages) and, within
// one, in the order of their open-cluster-management.io/cleanup-priority
// (see cleanupRank), and stops the list until all are gone: the cluster's
// RBAC, which its agent needs to finalize them, and the namespace go
// after. The Deleting condition says what is left, as OCM's does. A
// namespace that is not the cluster's own (see applyNamespace) is never
// touched.
//
// A ManifestWork's finalizer is its agent's to remove once it has deleted
// what the work applied. When the agent cannot (see agentCanFinalize), or
// no longer may (the namespace is going, the RBAC gone), the hub removes
// the finalizer itself, leaving what the work applied on the cluster, and
// says so in an event.
func (r *Reconciler) deleteContent(ctx context.Context, s *scope) (steps.Result, error) {
	ns, err := r.ownNamespace(ctx, s.cluster.Name)
	if err != nil {
		return steps.StopList, err
	}
	if ns == nil {
		return steps.Continue, nil
	}
	going := !ns.DeletionTimestamp.IsZero()
	if going || !agentCanFinalize(s.cluster) {
		works, err := r.listContent(ctx, ns.Name, r.stages()[worksStage], cachedRead)
		if err != nil {
			return steps.StopList, err
		}
		if err := r.releaseWorks(ctx, s, works); err != nil {
			return steps.StopList, err
		}
	}
	if going {
		return steps.Continue, nil // its content goes with it
	}
	st, items, err := r.contentLeft(ctx, ns.Name, cachedRead)
	if err == nil && len(items) == 0 {
		// The API server's cache may not hold yet what was created just
		// before the deletion: a work its agent must finalize would lose
		// the agent's RBAC. An empty namespace is read again from etcd
		// before anything moves on.
		st, items, err = r.contentLeft(ctx, ns.Name, consistentRead)
	}
	if err != nil {
		return steps.StopList, err
	}
	if len(items) == 0 {
		return steps.Continue, r.setDeleting(ctx, s, metav1.ConditionTrue, clusterv1.ConditionDeletingReasonNoResource,
			"No ManagedClusterAddOns or ManifestWorks are left in the cluster namespace")
	}
	var errs []error
	for _, obj := range firstToDelete(items) {
		if obj.DeletionTimestamp.IsZero() {
			ctrl.LoggerFrom(ctx).V(1).Info("Deleting what a deleted cluster's namespace holds", "cluster", ns.Name, "kind", obj.Kind, "name", obj.Name)
			if err := r.Client.Delete(ctx, obj, client.Preconditions{UID: &obj.UID}); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
				errs = append(errs, err)
			}
		}
	}
	if err := r.setDeleting(ctx, s, metav1.ConditionFalse, clusterv1.ConditionDeletingReasonResourceRemaining, remaining(st, items)); err != nil {
		errs = append(errs, err)
	}
	return steps.Result{Stop: true, RequeueAfter: contentCheck}, errors.Join(errs...)
}

// releaseGoingNamespace lets go of the works in the namespace of a cluster
// that is not deleted, when someone deleted the namespace: the namespace
// controller takes the agent's RoleBinding with everything else, so the
// agent can no longer remove its finalizer from the works being deleted,
// and the namespace would never go. What they applied stays on the
// cluster (its agent evicts what a vanished work applied after its grace
// period). The works of a namespace that is not going are left alone.
func (r *Reconciler) releaseGoingNamespace(ctx context.Context, s *scope) (steps.Result, error) {
	ns, err := r.ownNamespace(ctx, s.cluster.Name)
	if err != nil || ns == nil || ns.DeletionTimestamp.IsZero() {
		return steps.Continue, err
	}
	works, err := r.listContent(ctx, ns.Name, r.stages()[worksStage], cachedRead)
	if err == nil {
		err = r.releaseWorks(ctx, s, works)
	}
	// Looked at again: a work the cache showed not yet being deleted.
	return steps.Result{RequeueAfter: contentCheck}, err
}

// The resourceVersions listContent reads at: the API server's cache,
// which may lag behind etcd, or etcd itself.
const (
	cachedRead     = "0"
	consistentRead = ""
)

// contentLeft is the first stage (see stages) of which namespace ns still
// holds objects, and those objects; none when it is empty.
func (r *Reconciler) contentLeft(ctx context.Context, ns, resourceVersion string) (stage, []*metav1.PartialObjectMetadata, error) {
	for _, st := range r.stages() {
		items, err := r.listContent(ctx, ns, st, resourceVersion)
		if err != nil || len(items) > 0 {
			return st, items, err
		}
	}
	return stage{}, nil, nil
}

// listContent lists the objects of st in namespace ns, metadata only, past
// the manager's cache (which holds no addons or works), at resourceVersion:
// cachedRead costs no etcd read, for a look repeated every few seconds
// while many clusters may be deleted at once; none when their kind is not
// installed.
func (r *Reconciler) listContent(ctx context.Context, ns string, st stage, resourceVersion string) ([]*metav1.PartialObjectMetadata, error) {
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(st.list)
	err := r.live().List(ctx, list, client.InNamespace(ns), &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: resourceVersion}})
	if meta.IsNoMatchError(err) || apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing the %s of cluster namespace %s: %w", st.what, ns, err)
	}
	kind := strings.TrimSuffix(st.list.Kind, "List")
	var items []*metav1.PartialObjectMetadata
	for i := range list.Items {
		if obj := &list.Items[i]; st.holds(obj.Name) {
			obj.SetGroupVersionKind(st.list.GroupVersion().WithKind(kind))
			items = append(items, obj)
		}
	}
	return items, nil
}

// cleanupRank orders objects for deletion as the api documents
// open-cluster-management.io/cleanup-priority: those without it first,
// then those whose value is not an integer from 0 to 100, then by value.
func cleanupRank(obj *metav1.PartialObjectMetadata) int {
	v, ok := obj.Annotations[clusterv1.CleanupPriorityAnnotationKey]
	if !ok {
		return -2
	}
	p, err := strconv.Atoi(v)
	if err != nil || p < 0 || p > 100 {
		return -1
	}
	return p
}

// firstToDelete are the objects of the lowest cleanup rank: those deleted
// (or being deleted) before any other.
func firstToDelete(items []*metav1.PartialObjectMetadata) []*metav1.PartialObjectMetadata {
	lowest := cleanupRank(slices.MinFunc(items, func(a, b *metav1.PartialObjectMetadata) int {
		return cleanupRank(a) - cleanupRank(b)
	}))
	return slices.DeleteFunc(slices.Clone(items), func(obj *metav1.PartialObjectMetadata) bool { return cleanupRank(obj) != lowest })
}

// agentCanFinalize says whether the cluster's agent is there to finalize
// its works: the cluster is accepted (its RBAC stands) and the hub has not
// found its lease stale (Available is reported and not Unknown; a cluster
// whose API server is down, False, still has its agent).
func agentCanFinalize(cluster *clusterv1.ManagedCluster) bool {
	c := meta.FindStatusCondition(cluster.Status.Conditions, clusterv1.ManagedClusterConditionAvailable)
	return cluster.Spec.HubAcceptsClient && c != nil && c.Status != metav1.ConditionUnknown
}

// releaseWorks removes the work agent's finalizer from the works being
// deleted.
func (r *Reconciler) releaseWorks(ctx context.Context, s *scope, works []*metav1.PartialObjectMetadata) error {
	var errs []error
	released := 0
	for _, w := range works {
		if w.DeletionTimestamp.IsZero() || !slices.Contains(w.Finalizers, workv1.ManifestWorkFinalizer) {
			continue
		}
		want := slices.DeleteFunc(slices.Clone(w.Finalizers), func(f string) bool { return f == workv1.ManifestWorkFinalizer })
		patch, err := fieldpatch.Set("/metadata/finalizers", w.Finalizers, want)
		if err == nil {
			err = r.Client.Patch(ctx, w, patch)
		}
		switch {
		case err == nil:
			released++
		case apierrors.IsNotFound(err) || fieldpatch.Changed(err):
			// Gone, or its finalizers changed: looked at again next time.
		default:
			errs = append(errs, fmt.Errorf("releasing ManifestWork %s/%s: %w", w.Namespace, w.Name, err))
		}
	}
	if released > 0 && r.Recorder != nil {
		r.Recorder.Eventf(s.cluster, nil, corev1.EventTypeWarning, ReasonReleased, "Deleting",
			"The cluster's agent cannot finalize them (not heartbeating, not accepted, or its RBAC gone): removed its finalizer from %d ManifestWorks; what they applied stays on the cluster", released)
	}
	return errors.Join(errs...)
}

// remaining says what of stage st is left and what holds it.
func remaining(st stage, items []*metav1.PartialObjectMetadata) string {
	var held []string
	byAgent := false
	for _, obj := range items {
		if len(obj.Finalizers) > 0 {
			held = append(held, fmt.Sprintf("%s (%s)", obj.Name, strings.Join(obj.Finalizers, ", ")))
			byAgent = byAgent || slices.Contains(obj.Finalizers, workv1.ManifestWorkFinalizer)
		}
	}
	msg := fmt.Sprintf("%d %s left in the cluster namespace", len(items), st.what)
	if len(held) == 0 {
		return msg
	}
	const shown = 5
	if len(held) > shown {
		held = append(held[:shown], fmt.Sprintf("and %d more", len(held)-shown))
	}
	msg += "; waiting for their finalizers: " + strings.Join(held, "; ")
	if byAgent {
		msg += ". The cluster's work agent removes " + workv1.ManifestWorkFinalizer +
			" once it has deleted what the work applied; if no work agent runs for the cluster any more, remove the finalizer by hand"
	}
	return msg
}

// setDeleting writes the cluster's Deleting condition when it changed.
func (r *Reconciler) setDeleting(ctx context.Context, s *scope, status metav1.ConditionStatus, reason, message string) error {
	cond := metav1.Condition{Type: clusterv1.ManagedClusterConditionDeleting, Status: status, Reason: reason, Message: message,
		ObservedGeneration: s.cluster.Generation}
	if !meta.SetStatusCondition(&s.cluster.Status.Conditions, cond) {
		return nil
	}
	patch, err := ConditionsPatch(s.original, s.cluster.Status.Conditions)
	if err != nil {
		return err
	}
	err = r.Client.Status().Patch(ctx, s.cluster, patch)
	switch {
	case err == nil:
		s.original = s.cluster.DeepCopy()
		return nil
	case apierrors.IsNotFound(err) || apierrors.IsConflict(err) || fieldpatch.Changed(err):
		// Gone, or its conditions changed meanwhile: the next look writes it.
		s.cluster.Status.Conditions = slices.Clone(s.original.Status.Conditions)
		return nil
	}
	return fmt.Errorf("writing the cluster's Deleting condition: %w", err)
}
