package managedcluster

import (
	"slices"

	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

// finalizerLostOrDeletion passes updates that take the cleanup finalizer
// away (to put it back) or start a deletion. Adding the finalizer, which
// this controller does in the middle of a reconcile, passes nothing.
type finalizerLostOrDeletion struct{ predicate.Funcs }

func (finalizerLostOrDeletion) Update(e event.UpdateEvent) bool {
	if e.ObjectOld == nil || e.ObjectNew == nil {
		return false
	}
	return slices.Contains(e.ObjectOld.GetFinalizers(), clusterv1.ManagedClusterFinalizer) &&
		!slices.Contains(e.ObjectNew.GetFinalizers(), clusterv1.ManagedClusterFinalizer) ||
		e.ObjectOld.GetDeletionTimestamp().IsZero() != e.ObjectNew.GetDeletionTimestamp().IsZero()
}

// acceptanceChanged passes updates of spec.hubAcceptsClient, the only spec
// field this controller acts on: taints and other spec changes do not make
// it apply everything again.
type acceptanceChanged struct{ predicate.Funcs }

func (acceptanceChanged) Update(e event.UpdateEvent) bool {
	oldMC, ok1 := e.ObjectOld.(*clusterv1.ManagedCluster)
	newMC, ok2 := e.ObjectNew.(*clusterv1.ManagedCluster)
	return ok1 && ok2 && oldMC.Spec.HubAcceptsClient != newMC.Spec.HubAcceptsClient
}

// namespaceGoing passes a cluster namespace's deletion, and the start of
// it: what finishes a cluster's deletion, or has an accepted cluster's
// namespace made again. Its creation, which this controller did, does not.
type namespaceGoing struct{ predicate.Funcs }

func (namespaceGoing) Create(event.CreateEvent) bool { return false }
func (namespaceGoing) Delete(event.DeleteEvent) bool { return true }
func (namespaceGoing) Update(e event.UpdateEvent) bool {
	return e.ObjectOld.GetDeletionTimestamp().IsZero() && !e.ObjectNew.GetDeletionTimestamp().IsZero()
}
