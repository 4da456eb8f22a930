package rollout

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/sets"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	placementsdk "open-cluster-management.io/sdk-go/pkg/apis/cluster/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// ErrDecisions says a placement's decisions could not be read.
var ErrDecisions = errors.New("reading the placement's decisions")

// Naming lists the objects of a controller that name a placement.
type Naming func(ctx context.Context, namespace, placement string) []reconcile.Request

// WatchPlacements has b watch what a rollout reads of placements, mapped
// to the objects naming them: PlacementDecisions, by their placement
// label, and Placements created or deleted (whether one is found; its
// decisions say the rest).
func WatchPlacements(b *builder.Builder, naming Naming) *builder.Builder {
	ofDecision := func(ctx context.Context, obj client.Object) []reconcile.Request {
		placement := obj.GetLabels()[clusterv1beta1.PlacementLabel]
		if placement == "" {
			return nil
		}
		return naming(ctx, obj.GetNamespace(), placement)
	}
	ofPlacement := func(ctx context.Context, obj client.Object) []reconcile.Request {
		return naming(ctx, obj.GetNamespace(), obj.GetName())
	}
	return b.Watches(&clusterv1beta1.PlacementDecision{}, handler.EnqueueRequestsFromMapFunc(ofDecision)).
		Watches(&clusterv1beta1.Placement{}, handler.EnqueueRequestsFromMapFunc(ofPlacement), builder.WithPredicates(comesOrGoes{}))
}

// comesOrGoes passes a Placement's creation and deletion.
type comesOrGoes struct{ predicate.Funcs }

func (comesOrGoes) Update(event.UpdateEvent) bool { return false }

// ForPlacement is the rollout, at now, of the Placement at key, its
// decisions read from c (a cache), but for the clusters claimed by an
// earlier placement of the same rollout. found is false when the
// Placement does not exist; an error reading its decisions is
// ErrDecisions.
func ForPlacement(ctx context.Context, c client.Reader, key client.ObjectKey, claimed sets.Set[string], now time.Time) (ro Placement, found bool, err error) {
	placement := &clusterv1beta1.Placement{}
	if err := c.Get(ctx, key, placement); err != nil {
		if apierrors.IsNotFound(err) {
			return ro, false, nil
		}
		return ro, false, fmt.Errorf("reading the Placement: %w", err)
	}
	tracker := placementsdk.NewPlacementDecisionClustersTracker(placement, Decisions(ctx, c), nil)
	if err := tracker.Refresh(); err != nil {
		return ro, true, fmt.Errorf("%w: %w", ErrDecisions, err)
	}
	return Placement{Tracker: tracker, Claimed: claimed, PerGroup: placement.Spec.DecisionStrategy.GroupStrategy.ClustersPerDecisionGroup, Now: now}, true, nil
}
