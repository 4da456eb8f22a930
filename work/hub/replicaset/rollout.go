package replicaset

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/sets"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	rolloutsdk "open-cluster-management.io/sdk-go/pkg/apis/cluster/v1alpha1"
	placementsdk "open-cluster-management.io/sdk-go/pkg/apis/cluster/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/rollout"
	"github.com/corral-dev/corral/internal/steps"
)

// placementResult is what the rollout found for one placement ref.
type placementResult struct {
	name string
	// problem, when set, is why the placement's decisions could not be
	// followed (PlacementVerified's reason and message).
	problem, message string
	// groups are the decided clusters by decision group.
	groups placementsdk.ClusterGroupsMap
	// elsewhere are decided clusters an earlier placement ref of the set
	// already has a work on: not this placement's.
	elsewhere sets.Set[string]
	// status is each decided cluster's rollout status before this
	// reconcile wrote anything.
	status map[string]rolloutsdk.RolloutStatus
	// timedOut are the clusters past their progressDeadline.
	timedOut int
	// failureBreach says the rollout stopped on maxFailures.
	failureBreach bool
	// removed are the works of clusters the placement no longer selects.
	removed []*workv1.ManifestWork
}

// decided is every cluster the placement's decisions select, but those
// an earlier placement ref has.
func (p placementResult) decided() sets.Set[string] {
	if p.groups == nil {
		return sets.New[string]()
	}
	return p.groups.GetClusters().Difference(p.elsewhere)
}

// rollOut follows each placement ref's decisions as its rollout strategy
// allows: works for the clusters the rollout reaches, none for clusters
// no longer decided. The set comes back at the next rollout deadline.
func (r *Reconciler) rollOut(ctx context.Context, s *scope) (steps.Result, error) {
	hash, err := TemplateHash(s.set)
	if err != nil {
		return steps.StopList, err
	}
	s.hash = hash
	s.now = r.Clock.Now()
	var (
		errs    []error
		recheck *time.Duration
		removed []*workv1.ManifestWork
		claimed = sets.New[string]()
	)
	for _, ref := range s.set.Spec.PlacementRefs {
		res, after, err := r.rollOutPlacement(ctx, s, ref, claimed)
		s.placements = append(s.placements, res)
		removed = append(removed, res.removed...)
		if err != nil {
			errs = append(errs, fmt.Errorf("placement %s: %w", ref.Name, err))
		}
		if after != nil && (recheck == nil || *after < *recheck) {
			recheck = after
		}
	}
	for _, w := range removed {
		if claimed.Has(w.Namespace) {
			continue // a later placement ref has the cluster: it takes the work over in its turn
		}
		ctrl.LoggerFrom(ctx).V(1).Info("Deleting the ManifestWork of a cluster no placement selects", "cluster", w.Namespace,
			"placement", w.Labels[workv1alpha1.ManifestWorkReplicaSetPlacementNameLabelKey])
		if err := r.deleteWork(ctx, w); err != nil {
			errs = append(errs, err)
		}
		s.dropWork(w)
	}
	if recheck != nil {
		ctrl.LoggerFrom(ctx).V(4).Info("Looking again at the next rollout deadline", "after", *recheck)
		r.recheck.At(client.ObjectKeyFromObject(s.set), s.now.Add(*recheck))
	}
	s.rolloutErr = errors.Join(errs...)
	return steps.Continue, s.rolloutErr
}

// rollOutPlacement rolls the set out on one placement's clusters, except
// those an earlier placement ref claimed, as things stand at s.now on the
// injected clock; it says how long after that to look again. The works of
// clusters the placement no longer selects are left to the caller, in
// the result: a later placement ref may select them.
func (r *Reconciler) rollOutPlacement(ctx context.Context, s *scope, ref workv1alpha1.LocalPlacementReference, claimed sets.Set[string]) (placementResult, *time.Duration, error) {
	res := placementResult{name: ref.Name, status: map[string]rolloutsdk.RolloutStatus{}}
	ro, found, err := rollout.ForPlacement(ctx, r.Client, client.ObjectKey{Namespace: s.set.Namespace, Name: ref.Name}, claimed, s.now)
	switch {
	case errors.Is(err, rollout.ErrDecisions):
		res.problem, res.message = workv1alpha1.ReasonNotAsExpected, fmt.Sprintf("Placement %s: %v", ref.Name, err)
		return res, nil, err
	case err != nil:
		return res, nil, err
	case !found:
		res.problem, res.message = workv1alpha1.ReasonPlacementDecisionNotFound, fmt.Sprintf("Placement %s not found in namespace %s", ref.Name, s.set.Namespace)
		return res, nil, nil
	}
	res.groups = ro.Tracker.ExistingClusterGroupsBesides()
	res.elsewhere = res.groups.GetClusters().Intersection(claimed)

	works := map[string]*workv1.ManifestWork{}
	for i := range s.works {
		w := &s.works[i]
		if w.Labels[workv1alpha1.ManifestWorkReplicaSetPlacementNameLabelKey] != ref.Name || claimed.Has(w.Namespace) {
			continue
		}
		works[w.Namespace] = w.DeepCopy() // s.works changes as works are written
		st := clusterStatus(w, s.hash)
		ro.Existing = append(ro.Existing, st)
		res.status[w.Namespace] = st.Status
	}

	result, err := ro.Decide(ref.RolloutStrategy)
	if err != nil {
		res.problem, res.message = workv1alpha1.ReasonNotAsExpected, fmt.Sprintf("rollout strategy of placement %s: %v", ref.Name, err)
		return res, nil, nil // the set's spec must change first
	}
	res.timedOut, res.failureBreach = len(result.ClustersTimeOut), result.MaxFailureBreach

	var errs []error
	for _, c := range result.ClustersToRollout {
		if c.Status != rolloutsdk.ToApply {
			continue
		}
		if err := r.applyWork(ctx, s, c.ClusterName, ref.Name, works[c.ClusterName]); err != nil {
			errs = append(errs, err)
		}
	}
	for _, c := range result.ClustersRemoved {
		if w := works[c.ClusterName]; w != nil {
			res.removed = append(res.removed, w)
		}
	}
	claimed.Insert(res.decided().UnsortedList()...)
	return res, result.RecheckAfter, errors.Join(errs...)
}

// clusterStatus is a work's rollout status: ToApply while it has another
// template, or is being deleted; then rollout.WorkStatus since it was
// given this template (TemplateTimeAnnotation).
func clusterStatus(w *workv1.ManifestWork, hash string) rolloutsdk.ClusterRolloutStatus {
	st := rolloutsdk.ClusterRolloutStatus{ClusterName: w.Namespace, Status: rolloutsdk.ToApply}
	if w.Annotations[TemplateHashAnnotation] != hash || !w.DeletionTimestamp.IsZero() {
		return st
	}
	st.Status, st.LastTransitionTime = rollout.WorkStatus(w, rollout.GivenAt(w, TemplateTimeAnnotation))
	return st
}
