package addonconfig

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	rolloutsdk "open-cluster-management.io/sdk-go/pkg/apis/cluster/v1alpha1"
	placementsdk "open-cluster-management.io/sdk-go/pkg/apis/cluster/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	"github.com/corral-dev/corral/addons/manager/addonowner"
	"github.com/corral-dev/corral/addons/manager/install"
	"github.com/corral-dev/corral/internal/rollout"
	"github.com/corral-dev/corral/internal/steps"
)

// Condition reasons of ManagedClusterAddOnConditionConfigured.
const ReasonConfigured = "ConfigurationsConfigured"

// Reconciler rolls addons' configs out to their clusters.
type Reconciler struct {
	Client client.Client
	// Clock times minSuccessTime and progressDeadline; nil is the real
	// clock.
	Clock clock.PassiveClock
}

// scope is what one reconcile of a ClusterManagementAddOn works on.
type scope struct {
	cma *addonv1alpha1.ClusterManagementAddOn
	now time.Time
	// placements are the install strategy's placements, in its order;
	// rest has the addons on clusters none of them decides on.
	placements []*placement
	rest       *placement
	// leaving are the clusters whose addon is being deleted.
	leaving sets.Set[string]
}

// placement is one placement of the install strategy and the addons on
// the clusters it decides on (and no later placement does).
type placement struct {
	ref      addonv1alpha1.PlacementRef
	strategy clusterv1alpha1.RolloutStrategy
	// spec and tracker are the placement and its decisions; nil when it
	// does not exist.
	spec    *clusterv1beta1.Placement
	tracker *placementsdk.PlacementDecisionClustersTracker
	// want are the configs of its clusters.
	want configs
	// clusters are those it decides on; claimed those a later placement
	// decides on, which take that placement's configs.
	clusters, claimed sets.Set[string]
	addons            []*addon
	result            rolloutsdk.RolloutResult
	// problem is why its rollout strategy cannot be followed.
	problem error
}

// addon is one ManagedClusterAddOn, the configs it is to run with and
// where it is in rolling them out.
type addon struct {
	mca    *addonv1alpha1.ManagedClusterAddOn
	want   configs
	status rolloutsdk.ClusterRolloutStatus
}

// SetupWithManager registers the controller, with workers reconciles at
// once.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, workers int) error {
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("addon-config").
		For(&addonv1alpha1.ClusterManagementAddOn{}).
		Watches(&addonv1alpha1.ManagedClusterAddOn{}, handler.EnqueueRequestsFromMapFunc(addonowner.ToAddon)).
		Watches(&clusterv1beta1.Placement{}, handler.EnqueueRequestsFromMapFunc(install.AddonsPlacedBy(r.Client))).
		Watches(&clusterv1beta1.PlacementDecision{}, handler.EnqueueRequestsFromMapFunc(install.AddonsPlacedBy(r.Client))).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		Complete(r)
}

// Reconcile rolls the addon's configs out and writes how far each
// placement's rollout is.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	cma := &addonv1alpha1.ClusterManagementAddOn{}
	if err := r.Client.Get(ctx, req.NamespacedName, cma); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if cma.DeletionTimestamp != nil || !addonowner.ManagedByAddonManager(cma) {
		return ctrl.Result{}, nil
	}
	ctx = ctrl.LoggerInto(ctx, ctrl.LoggerFrom(ctx).WithValues("addon", klog.KObj(cma)))
	s := &scope{cma: cma, now: r.Clock.Now(), leaving: sets.New[string]()}
	return steps.Run(ctx, s,
		steps.Step[*scope]{Name: "read placements", Run: r.readPlacements},
		steps.Step[*scope]{Name: "list addons", Run: r.listAddons},
		steps.Step[*scope]{Name: "roll out", Run: r.rollOut},
		steps.Step[*scope]{Name: "progressions", Run: r.writeProgressions},
	)
}

// readPlacements reads the install strategy's placements, their decisions
// and configs. A placement that does not exist decides on no cluster.
func (r *Reconciler) readPlacements(ctx context.Context, s *scope) (steps.Result, error) {
	s.rest = &placement{want: defaults(install.DefaultConfigReferences(s.cma.Spec.SupportedConfigs, s.cma.Status.DefaultConfigReferences))} //nolint:staticcheck // v1alpha1 is the stored version; its supportedConfigs is v1beta1's defaultConfigs
	if s.cma.Spec.InstallStrategy.Type != addonv1alpha1.AddonInstallStrategyPlacements {
		return steps.Continue, nil
	}
	progressions := install.InstallProgressions(s.cma, s.cma.Status.InstallProgressions)
	for i, ps := range s.cma.Spec.InstallStrategy.Placements {
		p := &placement{ref: ps.PlacementRef, strategy: ps.RolloutStrategy, want: placementConfigs(progressions[i].ConfigReferences), clusters: sets.New[string]()}
		s.placements = append(s.placements, p)
		spec := &clusterv1beta1.Placement{}
		err := r.Client.Get(ctx, types.NamespacedName{Namespace: ps.Namespace, Name: ps.Name}, spec)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return steps.StopList, fmt.Errorf("reading placement %s/%s: %w", ps.Namespace, ps.Name, err)
		}
		p.spec = spec
		p.tracker = placementsdk.NewPlacementDecisionClustersTracker(spec, rollout.Decisions(ctx, r.Client), nil)
		if err := p.tracker.Refresh(); err != nil {
			return steps.StopList, fmt.Errorf("reading the decisions of placement %s/%s: %w", ps.Namespace, ps.Name, err)
		}
		p.clusters = p.tracker.ExistingClusterGroupsBesides().GetClusters()
	}
	claimed := sets.New[string]()
	for _, p := range slices.Backward(s.placements) {
		p.claimed = claimed.Clone()
		claimed = claimed.Union(p.clusters)
	}
	return steps.Continue, nil
}

// listAddons puts each of the addon's ManagedClusterAddOns with the last
// placement deciding on its cluster, or with the rest, and works out the
// configs it is to run with and where it is in rolling them out.
func (r *Reconciler) listAddons(ctx context.Context, s *scope) (steps.Result, error) {
	list := &addonv1alpha1.ManagedClusterAddOnList{}
	if err := r.Client.List(ctx, list, client.MatchingFields{addonowner.NameIndex: s.cma.Name}); err != nil {
		return steps.StopList, fmt.Errorf("listing ManagedClusterAddOns: %w", err)
	}
	for i := range list.Items {
		mca := &list.Items[i]
		if mca.DeletionTimestamp != nil {
			s.leaving.Insert(mca.Namespace)
			continue
		}
		p := s.rest
		if j := slices.IndexFunc(s.placements, func(p *placement) bool { return p.clusters.Has(mca.Namespace) && !p.claimed.Has(mca.Namespace) }); j >= 0 {
			p = s.placements[j]
		}
		a := &addon{mca: mca, want: Override(p.want, own(mca))}
		a.status = rolloutStatus(mca, a.want)
		p.addons = append(p.addons, a)
	}
	return steps.Continue, nil
}

// rollOut gives the configs each placement's rollout strategy reaches now
// to those addons, and every other addon its configs at once. It comes
// back at the next rollout deadline, and soon after losing a write race.
func (r *Reconciler) rollOut(ctx context.Context, s *scope) (steps.Result, error) {
	var (
		errs    []error
		recheck time.Duration
	)
	later := func(after time.Duration) {
		if recheck == 0 || after < recheck {
			recheck = after
		}
	}
	for _, p := range s.placements {
		if p.tracker == nil {
			continue
		}
		ro := rollout.Placement{Tracker: p.tracker, Claimed: p.claimed, PerGroup: p.spec.Spec.DecisionStrategy.GroupStrategy.ClustersPerDecisionGroup, Now: s.now}
		without := p.clusters.Difference(p.claimed)
		for _, a := range p.addons {
			ro.Existing = append(ro.Existing, a.status)
			without.Delete(a.mca.Namespace)
		}
		// A decided cluster whose addon is being deleted, or that is gone
		// or going, gets no addon to roll out to: it is passed over, not
		// waited for. One whose addon is still to be made is waited for.
		for _, c := range sets.List(without) {
			gone, err := r.clusterGone(ctx, c, s.leaving)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if gone {
				ro.Existing = append(ro.Existing, rolloutsdk.ClusterRolloutStatus{ClusterName: c, Status: rolloutsdk.Skip})
			}
		}
		p.result, p.problem = ro.Decide(p.strategy)
		if p.problem != nil {
			continue
		}
		start := sets.New[string]()
		for _, c := range p.result.ClustersToRollout {
			if c.Status == rolloutsdk.ToApply {
				start.Insert(c.ClusterName)
			}
		}
		lost, err := r.writeAddons(ctx, p.addons, start)
		errs = append(errs, err)
		if lost {
			later(steps.ConflictRetry)
		}
		if after := p.result.RecheckAfter; after != nil {
			later(*after)
		}
	}
	all := sets.New[string]()
	for _, a := range s.rest.addons {
		all.Insert(a.mca.Namespace)
	}
	lost, err := r.writeAddons(ctx, s.rest.addons, all)
	if lost {
		later(steps.ConflictRetry)
	}
	return steps.Result{RequeueAfter: recheck}, errors.Join(append(errs, err)...)
}

// clusterGone says whether cluster will have no addon to roll out to:
// its addon is being deleted (leaving), or the ManagedCluster does not
// exist or is being deleted.
func (r *Reconciler) clusterGone(ctx context.Context, cluster string, leaving sets.Set[string]) (bool, error) {
	if leaving.Has(cluster) {
		return true, nil
	}
	mc := &clusterv1.ManagedCluster{}
	err := r.Client.Get(ctx, types.NamespacedName{Name: cluster}, mc)
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading cluster %s: %w", cluster, err)
	}
	return !mc.DeletionTimestamp.IsZero(), nil
}

// writeAddons writes the configs of the addons on the clusters in start
// that are still to get them, and keeps the Configured condition of those
// that have theirs current. It says whether it lost a write race (another
// writer changed an addon first): that addon is looked at again soon,
// and the others are written all the same.
func (r *Reconciler) writeAddons(ctx context.Context, addons []*addon, start sets.Set[string]) (bool, error) {
	var (
		errs []error
		lost bool
	)
	for _, a := range addons {
		old := a.mca.DeepCopy()
		switch {
		case a.status.Status != rolloutsdk.ToApply:
			meta.SetStatusCondition(&a.mca.Status.Conditions, configured(a.mca.Generation))
		case start.Has(a.mca.Namespace):
			a.mca.Status.ConfigReferences = ConfigReferences(a.want, a.mca.Status.ConfigReferences)
			meta.SetStatusCondition(&a.mca.Status.Conditions, configured(a.mca.Generation))
		}
		if equality.Semantic.DeepEqual(old.Status, a.mca.Status) {
			continue
		}
		err := r.Client.Status().Patch(ctx, a.mca, client.MergeFromWithOptions(old, client.MergeFromWithOptimisticLock{}))
		switch {
		case apierrors.IsConflict(err):
			ctrl.LoggerFrom(ctx).V(4).Info("Write conflict on an addon's configs; looking again", "cluster", a.mca.Namespace)
			lost = true
		case err != nil:
			errs = append(errs, fmt.Errorf("writing the configs of %s/%s: %w", a.mca.Namespace, a.mca.Name, err))
		default:
			ctrl.LoggerFrom(ctx).V(1).Info("Wrote an addon's configs or Configured condition", "cluster", a.mca.Namespace, "configs", len(a.want))
		}
	}
	return lost, errors.Join(errs...)
}

// writeProgressions writes each install progression's Progressing
// condition, and its last applied configs once its rollout completed.
func (r *Reconciler) writeProgressions(ctx context.Context, s *scope) (steps.Result, error) {
	old := s.cma.DeepCopy()
	for i := range s.cma.Status.InstallProgressions {
		prog := &s.cma.Status.InstallProgressions[i]
		j := slices.IndexFunc(s.placements, func(p *placement) bool { return p.ref == prog.PlacementRef })
		if j < 0 {
			continue
		}
		progress(prog, s.placements[j])
	}
	if equality.Semantic.DeepEqual(old.Status, s.cma.Status) {
		return steps.Continue, nil
	}
	if err := r.Client.Status().Patch(ctx, s.cma, client.MergeFromWithOptions(old, client.MergeFromWithOptimisticLock{})); err != nil {
		return steps.StopList, fmt.Errorf("writing the install progressions of addon %s: %w", s.cma.Name, err)
	}
	return steps.Continue, nil
}
