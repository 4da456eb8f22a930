package replicaset

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	rolloutsdk "open-cluster-management.io/sdk-go/pkg/apis/cluster/v1alpha1"
	placementsdk "open-cluster-management.io/sdk-go/pkg/apis/cluster/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	steps "github.com/corral-dev/corral/internal/reconcile"
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
	hash, err := templateHash(s.set)
	if err != nil {
		return steps.StopList, err
	}
	s.hash = hash
	var (
		errs    []error
		recheck *time.Duration
		// now is the injected clock's time the rollout is decided at.
		now     = r.Clock.Now()
		claimed = sets.New[string]()
	)
	for _, ref := range s.set.Spec.PlacementRefs {
		res, after, err := r.rollOutPlacement(ctx, s, ref, claimed, now)
		s.placements = append(s.placements, res)
		if err != nil {
			errs = append(errs, fmt.Errorf("placement %s: %w", ref.Name, err))
		}
		if after != nil && (recheck == nil || *after < *recheck) {
			recheck = after
		}
	}
	if recheck != nil {
		ctrl.LoggerFrom(ctx).V(4).Info("Looking again at the next rollout deadline", "after", *recheck)
		r.recheck.at(client.ObjectKeyFromObject(s.set), now.Add(*recheck))
	}
	s.rolloutErr = errors.Join(errs...)
	return steps.Continue, s.rolloutErr
}

// rollOutPlacement rolls the set out on one placement's clusters, except
// those an earlier placement ref claimed, as things stand at now on the
// injected clock; it says how long after now to look again.
func (r *Reconciler) rollOutPlacement(ctx context.Context, s *scope, ref workv1alpha1.LocalPlacementReference, claimed sets.Set[string], now time.Time) (placementResult, *time.Duration, error) {
	res := placementResult{name: ref.Name, status: map[string]rolloutsdk.RolloutStatus{}}
	placement := &clusterv1beta1.Placement{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: s.set.Namespace, Name: ref.Name}, placement); err != nil {
		if apierrors.IsNotFound(err) {
			res.problem, res.message = workv1alpha1.ReasonPlacementDecisionNotFound, fmt.Sprintf("Placement %s not found in namespace %s", ref.Name, s.set.Namespace)
			return res, nil, nil
		}
		return res, nil, fmt.Errorf("reading the Placement: %w", err)
	}
	tracker := placementsdk.NewPlacementDecisionClustersTracker(placement, decisionLister{ctx: ctx, c: r.Client}, nil)
	if err := tracker.Refresh(); err != nil {
		res.problem, res.message = workv1alpha1.ReasonNotAsExpected, fmt.Sprintf("reading the decisions of Placement %s: %v", ref.Name, err)
		return res, nil, err
	}
	res.groups = tracker.ExistingClusterGroupsBesides()
	res.elsewhere = res.groups.GetClusters().Intersection(claimed)

	works := map[string]*workv1.ManifestWork{}
	ro := rollout{tracker: tracker, claimed: claimed, perGroup: placement.Spec.DecisionStrategy.GroupStrategy.ClustersPerDecisionGroup, now: now}
	for i := range s.works {
		w := &s.works[i]
		if w.Labels[workv1alpha1.ManifestWorkReplicaSetPlacementNameLabelKey] != ref.Name || claimed.Has(w.Namespace) {
			continue
		}
		works[w.Namespace] = w.DeepCopy() // s.works changes as works are written
		st := clusterStatus(w, s.hash)
		ro.existing = append(ro.existing, st)
		res.status[w.Namespace] = st.Status
	}

	result, err := ro.decide(ref.RolloutStrategy)
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
			ctrl.LoggerFrom(ctx).V(1).Info("Deleting the ManifestWork of a cluster the placement no longer selects", "cluster", c.ClusterName, "placement", ref.Name)
			if err := r.deleteWork(ctx, w); err != nil {
				errs = append(errs, err)
			}
			s.dropWork(w)
		}
	}
	claimed.Insert(res.decided().UnsortedList()...)
	return res, result.RecheckAfter, errors.Join(errs...)
}

// clusterStatus is a work's rollout status, as OCM reads it: ToApply until
// the agent reports the current template Applied and Progressing for it;
// then Failed (Progressing and Degraded), Progressing, or Succeeded
// (Progressing False), since the condition last changed.
func clusterStatus(w *workv1.ManifestWork, hash string) rolloutsdk.ClusterRolloutStatus {
	st := rolloutsdk.ClusterRolloutStatus{ClusterName: w.Namespace, Status: rolloutsdk.ToApply}
	if w.Annotations[TemplateHashAnnotation] != hash || !w.DeletionTimestamp.IsZero() {
		return st
	}
	applied := meta.FindStatusCondition(w.Status.Conditions, workv1.WorkApplied)
	progressing := meta.FindStatusCondition(w.Status.Conditions, workv1.WorkProgressing)
	degraded := meta.FindStatusCondition(w.Status.Conditions, workv1.WorkDegraded)
	if !observed(applied, w.Generation) || applied.Status != metav1.ConditionTrue ||
		!observed(progressing, w.Generation) || (degraded != nil && !observed(degraded, w.Generation)) {
		return st
	}
	switch {
	case progressing.Status == metav1.ConditionTrue && degraded != nil && degraded.Status == metav1.ConditionTrue:
		st.Status, st.LastTransitionTime = rolloutsdk.Failed, degraded.LastTransitionTime.DeepCopy()
	case progressing.Status == metav1.ConditionFalse:
		st.Status, st.LastTransitionTime = rolloutsdk.Succeeded, progressing.LastTransitionTime.DeepCopy()
	default:
		st.Status, st.LastTransitionTime = rolloutsdk.Progressing, progressing.LastTransitionTime.DeepCopy()
	}
	return st
}

func observed(c *metav1.Condition, generation int64) bool {
	return c != nil && c.ObservedGeneration == generation
}

// decisionLister reads PlacementDecisions for the rollout library, from
// the cache. A decision without a decision group index (written by hand,
// or by an older scheduler) is in group 0.
type decisionLister struct {
	ctx context.Context
	c   client.Reader
}

func (d decisionLister) List(selector labels.Selector, namespace string) ([]*clusterv1beta1.PlacementDecision, error) {
	list := &clusterv1beta1.PlacementDecisionList{}
	if err := d.c.List(d.ctx, list, client.InNamespace(namespace), client.MatchingLabelsSelector{Selector: selector}); err != nil {
		return nil, err
	}
	out := make([]*clusterv1beta1.PlacementDecision, 0, len(list.Items))
	for i := range list.Items {
		pd := &list.Items[i]
		if _, ok := pd.Labels[clusterv1beta1.DecisionGroupIndexLabel]; !ok {
			pd.Labels = labels.Merge(pd.Labels, labels.Set{clusterv1beta1.DecisionGroupIndexLabel: "0"})
		}
		out = append(out, pd)
	}
	return out, nil
}
