package managedcluster

import (
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

// finalizersOrDeletionChanged passes updates that change the finalizers or
// start a deletion, so that "add the finalizer, return" is followed by the
// next reconcile although status and other metadata updates are filtered.
type finalizersOrDeletionChanged struct{ predicate.Funcs }

func (finalizersOrDeletionChanged) Update(e event.UpdateEvent) bool {
	if e.ObjectOld == nil || e.ObjectNew == nil {
		return false
	}
	return !slices.Equal(e.ObjectOld.GetFinalizers(), e.ObjectNew.GetFinalizers()) ||
		e.ObjectOld.GetDeletionTimestamp().IsZero() != e.ObjectNew.GetDeletionTimestamp().IsZero()
}
