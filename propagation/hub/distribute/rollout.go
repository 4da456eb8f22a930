package distribute

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	workv1 "open-cluster-management.io/api/work/v1"
	rolloutsdk "open-cluster-management.io/sdk-go/pkg/apis/cluster/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/rollout"
	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// RolloutTimeAnnotation on a ManifestWork is when it was given the
// revision of its apps.corral.dev/revision label (RFC 3339, on the
// controller's clock): the rollout on its cluster started then.
const RolloutTimeAnnotation = v1alpha1.GroupName + "/rollout-time"

// ReasonInvalidRolloutStrategy says a placement ref's rolloutStrategy
// cannot be followed.
const ReasonInvalidRolloutStrategy = "InvalidRolloutStrategy"

// placementResult is what the rollout found for one placement ref.
type placementResult struct {
	ref placementRef
	// problem and message, when set, say why the placement could not be
	// followed.
	problem, message string
	// decided are the clusters the placement's decisions select, but those
	// an earlier placement ref has.
	decided sets.Set[string]
	// timedOut are the clusters past their progressDeadline.
	timedOut sets.Set[string]
	// failureBreach says the rollout stopped on maxFailures.
	failureBreach bool
}

// rollOut follows each placement ref's decisions as its rollout strategy
// allows, and deletes the works of clusters no placement selects. With no
// revision to deliver, or a placement that cannot be followed, it writes
// nothing: the clusters keep what they run. The decisions of every ref
// are read first: divided replicas are shared over all their clusters.
func (r *Reconciler) rollOut(ctx context.Context, s *scope) (steps.Result, error) {
	var (
		errs    []error
		recheck *time.Duration
		claimed = sets.New[string]()
		plans   []placementPlan
	)
	for _, ref := range s.p.refs {
		plan, err := r.placementOf(ctx, s, ref, claimed)
		s.placements = append(s.placements, plan.res)
		plans = append(plans, plan)
		if err != nil {
			errs = append(errs, fmt.Errorf("placement %s: %w", ref, err))
		}
	}
	if s.delivered != nil && !s.placementProblem() {
		if err := s.contents.divide(ctx, claimed, s.p.status.Clusters); err != nil {
			s.revisionProblem, s.revisionMessage = v1alpha1.ReasonInvalidReplicaScheduling, fmt.Sprintf("%v; the clusters keep what they run", err)
			s.delivered, s.contents = nil, nil
		}
	}
	for i := range plans {
		after, err := r.rollOutPlacement(ctx, s, &plans[i])
		s.placements[i] = plans[i].res
		if err != nil {
			errs = append(errs, fmt.Errorf("placement %s: %w", plans[i].res.ref, err))
		}
		if after != nil && (recheck == nil || *after < *recheck) {
			recheck = after
		}
	}
	if s.delivered != nil && !s.placementProblem() {
		errs = append(errs, r.removeLeft(ctx, s, claimed))
	}
	s.rolloutErr = errors.Join(errs...)
	if recheck != nil {
		ctrl.LoggerFrom(ctx).V(4).Info("Looking again at the next rollout deadline", "after", *recheck)
		r.recheck.At(client.ObjectKeyFromObject(s.original), s.now.Add(*recheck))
	}
	return steps.Continue, s.rolloutErr
}

// placementProblem says a placement ref cannot be followed (its
// problem is the status's).
func (s *scope) placementProblem() bool {
	return slices.ContainsFunc(s.placements, func(p placementResult) bool { return p.problem != "" })
}

// placementPlan is one placement ref's decisions, read before any is
// rolled out.
type placementPlan struct {
	res placementResult
	// ro is the placement's rollout; nil when it cannot be followed.
	ro *rollout.Placement
	// before are the clusters earlier refs have.
	before sets.Set[string]
}

// placementOf reads a placement ref's decisions: the clusters it selects,
// but those an earlier ref claimed, which it adds to claimed.
func (r *Reconciler) placementOf(ctx context.Context, s *scope, ref placementRef, claimed sets.Set[string]) (placementPlan, error) {
	plan := placementPlan{res: placementResult{ref: ref, decided: sets.New[string](), timedOut: sets.New[string]()}, before: claimed.Clone()}
	ro, found, err := rollout.ForPlacement(ctx, r.Client, client.ObjectKey{Namespace: ref.namespace, Name: ref.name}, plan.before, s.now)
	switch {
	case errors.Is(err, rollout.ErrDecisions):
		plan.res.problem, plan.res.message = v1alpha1.ReasonPlacementNotFound, fmt.Sprintf("Placement %s: %v", ref, err)
		return plan, err
	case err != nil:
		return plan, err
	case !found:
		plan.res.problem, plan.res.message = v1alpha1.ReasonPlacementNotFound, fmt.Sprintf("Placement %s not found", ref)
		return plan, nil
	}
	plan.ro = &ro
	plan.res.decided = ro.Tracker.ExistingClusterGroupsBesides().GetClusters().Difference(claimed)
	claimed.Insert(plan.res.decided.UnsortedList()...)
	return plan, nil
}

// rollOutPlacement rolls the delivered revision out on one placement's
// clusters and says how long until a rollout deadline. Clusters whose
// works carry the delivered revision already are kept in line with it (a
// deletionPolicy change, a new division of the replicas, a cluster's new
// labels); the others get it when the strategy reaches them.
func (r *Reconciler) rollOutPlacement(ctx context.Context, s *scope, plan *placementPlan) (*time.Duration, error) {
	res, ro := &plan.res, plan.ro
	if s.delivered == nil || ro == nil {
		return nil, nil
	}
	byCluster := s.worksByCluster()
	for _, cluster := range sets.List(sets.KeySet(byCluster).Union(res.decided)) {
		if plan.before.Has(cluster) {
			continue
		}
		if st, started := s.rolloutStatus(ctx, cluster, byCluster[cluster], res.decided.Has(cluster)); started {
			ro.Existing = append(ro.Existing, st)
		}
	}
	result, err := ro.Decide(res.ref.strategy)
	if err != nil {
		res.problem, res.message = ReasonInvalidRolloutStrategy, fmt.Sprintf("rollout strategy of placement %s: %v", res.ref, err)
		return nil, nil // the propagation's spec must change first
	}
	for _, c := range result.ClustersTimeOut {
		res.timedOut.Insert(c.ClusterName)
	}
	res.failureBreach = result.MaxFailureBreach

	toApply := sets.New[string]()
	for _, c := range result.ClustersToRollout {
		if c.Status == rolloutsdk.ToApply {
			toApply.Insert(c.ClusterName)
		}
	}
	var errs []error
	for _, cluster := range sets.List(res.decided) {
		if !toApply.Has(cluster) && !s.carriesDelivered(ctx, cluster, byCluster[cluster]) {
			continue // the rollout has not reached it
		}
		if err := r.applyCluster(ctx, s, cluster, byCluster[cluster]); err != nil {
			errs = append(errs, err)
		}
	}
	return result.RecheckAfter, errors.Join(errs...)
}

// removeLeft deletes the works of clusters no placement selects.
func (r *Reconciler) removeLeft(ctx context.Context, s *scope, selected sets.Set[string]) error {
	var errs []error
	for cluster, works := range s.worksByCluster() {
		if selected.Has(cluster) {
			continue
		}
		ctrl.LoggerFrom(ctx).V(1).Info("Removing the ManifestWorks of a cluster no placement selects", "cluster", cluster,
			"deletionPolicy", s.p.policy.DeletionPolicy)
		for i := range works {
			if err := r.deleteWork(ctx, s.p, &works[i]); err != nil {
				errs = append(errs, err)
			}
			s.dropWork(&works[i])
		}
	}
	return errors.Join(errs...)
}

// worksByCluster are the scope's works by cluster namespace, each
// cluster's by name.
func (s *scope) worksByCluster() map[string][]workv1.ManifestWork {
	out := map[string][]workv1.ManifestWork{}
	for _, w := range s.works {
		out[w.Namespace] = append(out[w.Namespace], w)
	}
	for _, ws := range out {
		slices.SortFunc(ws, func(a, b workv1.ManifestWork) int { return cmp.Compare(a.Name, b.Name) })
	}
	return out
}

// carriesDelivered says a cluster's works are all of the delivered
// revision, and as many as its parts.
func (s *scope) carriesDelivered(ctx context.Context, cluster string, works []workv1.ManifestWork) bool {
	if s.delivered == nil {
		return false
	}
	cont := s.contentOf(ctx, cluster)
	if cont.err != nil || len(works) != len(cont.parts) {
		return false
	}
	for _, w := range works {
		if revisionOf(&w) != s.delivered.number {
			return false
		}
	}
	return true
}

// rolloutStatus is a cluster's status for the rollout, and whether the
// rollout started there (it has works, or cannot have them). A cluster
// the revision cannot be made for (an override that cannot apply) is
// Failed: the rollout counts it against maxFailures. A cluster no
// placement selects is on its way out, its status not asked for.
func (s *scope) rolloutStatus(ctx context.Context, cluster string, works []workv1.ManifestWork, decided bool) (rolloutsdk.ClusterRolloutStatus, bool) {
	if !decided {
		return rolloutsdk.ClusterRolloutStatus{ClusterName: cluster, Status: rolloutsdk.ToApply}, len(works) > 0
	}
	cont := s.contentOf(ctx, cluster)
	if cont.err != nil {
		now := metav1.NewTime(s.now)
		return rolloutsdk.ClusterRolloutStatus{ClusterName: cluster, Status: rolloutsdk.Failed, LastTransitionTime: &now}, true
	}
	return clusterStatus(cluster, works, s.delivered.number, len(cont.parts)), len(works) > 0
}

// revisionOf is the revision a work's label says it carries, 0 when it
// says none.
func revisionOf(w *workv1.ManifestWork) int64 {
	n, _ := strconv.ParseInt(w.Labels[v1alpha1.LabelRevision], 10, 64)
	return n
}

// clusterStatus is a cluster's rollout status from its works: ToApply
// while they do not all carry revision, as many as parts, or while one is
// being deleted. Then, each work read as OCM reads a work's conditions of
// its current generation (Failed when Progressing and Degraded, Succeeded
// when Progressing is False, otherwise Progressing, also while not
// reported yet), the cluster is Failed if a work is, else Progressing if
// one is, else Succeeded; since the latest change among those works,
// never before they were given the revision.
func clusterStatus(cluster string, works []workv1.ManifestWork, revision int64, parts int) rolloutsdk.ClusterRolloutStatus {
	out := rolloutsdk.ClusterRolloutStatus{ClusterName: cluster, Status: rolloutsdk.ToApply}
	if len(works) != parts {
		return out
	}
	for i := range works {
		if revisionOf(&works[i]) != revision || !works[i].DeletionTimestamp.IsZero() {
			return out
		}
	}
	statuses := map[rolloutsdk.RolloutStatus]*metav1.Time{}
	for i := range works {
		st, since := rollout.WorkStatus(&works[i], rollout.GivenAt(&works[i], RolloutTimeAnnotation))
		if t := statuses[st]; t == nil || t.Before(since) {
			statuses[st] = since
		}
	}
	for _, st := range []rolloutsdk.RolloutStatus{rolloutsdk.Failed, rolloutsdk.Progressing, rolloutsdk.Succeeded} {
		if since, ok := statuses[st]; ok {
			out.Status, out.LastTransitionTime = st, since
			return out
		}
	}
	out.Status = rolloutsdk.Succeeded // no parts: nothing to wait for
	return out
}
