package clusterset

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/registration/common"
)

// Reasons of the ClusterSetEmpty condition. The first two are OCM's.
const (
	ReasonClustersSelected = "ClustersSelected"
	ReasonNoClusterMatched = "NoClusterMatched"
	// ReasonInvalidSelector is corral's: the set's selector cannot be
	// evaluated, so whether it is empty is Unknown.
	ReasonInvalidSelector = "InvalidClusterSelector"
)

// emptyCondition is the ClusterSetEmpty condition of a set that selects
// count clusters, or whose selector failed with selectorErr.
func emptyCondition(set *clusterv1beta2.ManagedClusterSet, count int, selectorErr error) metav1.Condition {
	cond := metav1.Condition{Type: clusterv1beta2.ManagedClusterSetConditionEmpty, ObservedGeneration: set.Generation}
	switch {
	case selectorErr != nil:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionUnknown, ReasonInvalidSelector, selectorErr.Error()
	case count == 0:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionTrue, ReasonNoClusterMatched, "No ManagedCluster selected"
	default:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, ReasonClustersSelected, fmt.Sprintf("%d ManagedClusters selected", count)
	}
	return cond
}

// countMembers works out the ClusterSetEmpty condition from the clusters
// the set selects. An invalid selector is not an error to retry: the
// condition reports it.
func (r *Reconciler) countMembers(ctx context.Context, s *scope) (steps.Result, error) {
	// The clusters are only counted: no need to copy them out of the cache.
	members, err := common.Members(ctx, r.Client, s.set, client.UnsafeDisableDeepCopy)
	var invalid *common.InvalidSelectorError
	switch {
	case errors.As(err, &invalid):
		s.empty = emptyCondition(s.set, 0, err)
		return steps.Continue, nil
	case err != nil:
		return steps.StopList, err
	}
	ctrl.LoggerFrom(ctx).V(4).Info("Counted the set's clusters", "set", s.set.Name, "clusters", len(members))
	s.empty = emptyCondition(s.set, len(members), nil)
	return steps.Continue, nil
}

// updateStatus writes the ClusterSetEmpty condition, once, only if it
// changed, and records an event when its status flips.
func (r *Reconciler) updateStatus(ctx context.Context, s *scope) (steps.Result, error) {
	cond := s.empty
	if !meta.SetStatusCondition(&s.set.Status.Conditions, cond) {
		return steps.Continue, nil
	}
	if err := r.Client.Status().Patch(ctx, s.set, client.MergeFromWithOptions(s.original, client.MergeFromWithOptimisticLock{}), client.FieldOwner(FieldOwner)); err != nil {
		return steps.Continue, fmt.Errorf("updating the status of %s: %w", s.set.Name, err)
	}
	old := meta.FindStatusCondition(s.original.Status.Conditions, cond.Type)
	if old == nil || old.Status != cond.Status {
		ctrl.LoggerFrom(ctx).V(1).Info("ManagedClusterSet emptiness changed", "set", s.set.Name, "empty", cond.Status, "reason", cond.Reason)
		eventType := corev1.EventTypeNormal
		if cond.Status == metav1.ConditionUnknown {
			eventType = corev1.EventTypeWarning
		}
		r.event(s.set, eventType, cond.Reason, "Select", "%s", cond.Message)
	}
	return steps.Continue, nil
}
