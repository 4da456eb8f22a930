package addonprogressing

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	"open-cluster-management.io/addon-framework/pkg/addonmanager/constants"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/corral-dev/corral/addons/manager/addonowner"
	"github.com/corral-dev/corral/internal/compact"
	"github.com/corral-dev/corral/internal/steps"
)

// The reasons Progressing is False while an addon's manifests are not yet
// rendered, OCM's.
const (
	ReasonWaitingForManifestApplied        = "WaitingForManifestApplied"
	ReasonWaitingForHostingManifestApplied = "WaitingForHostingManifestApplied"
)

// WorkReconciler sets the Progressing condition of the addons whose agents
// arrive as ManifestWorks: every addon whose lifecycle the hub runs (see
// addonowner.ManagedByAddonManager), but corral's built-ins.
type WorkReconciler struct {
	Client client.Client
	// Skip are the addons left alone: every built-in addon, whether its
	// hub half runs in this process or not (Reconciler sets theirs).
	Skip sets.Set[string]
	// addonWorks caches the ManifestWorks labelled with an addon's name,
	// and no others: a hub's other works may be many.
	addonWorks client.Reader
}

// SetupWithManager registers the controller, with workers reconciles at
// once, and the cache of the addons' works. mgr's cache must have
// addonowner's NameIndex.
func (r *WorkReconciler) SetupWithManager(mgr ctrl.Manager, workers int) error {
	ofAddons, _ := labels.NewRequirement(addonv1alpha1.AddonLabelKey, selection.Exists, nil)
	works, err := cache.New(mgr.GetConfig(), cache.Options{
		Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper(), DefaultTransform: compact.Transform(),
		ByObject: map[client.Object]cache.ByObject{&workv1.ManifestWork{}: {Label: labels.NewSelector().Add(*ofAddons)}},
	})
	if err != nil {
		return fmt.Errorf("a cache of the addons' ManifestWorks: %w", err)
	}
	if err := mgr.Add(works); err != nil {
		return err
	}
	r.addonWorks = works
	thirdParty := predicate.NewPredicateFuncs(func(o client.Object) bool { return !r.Skip.Has(o.GetName()) })
	ofThirdParty := predicate.NewTypedPredicateFuncs(func(w *workv1.ManifestWork) bool { return !r.Skip.Has(w.Labels[addonv1alpha1.AddonLabelKey]) })
	return ctrl.NewControllerManagedBy(mgr).
		Named("addon-work-progressing").
		For(&addonv1alpha1.ManagedClusterAddOn{}, builder.WithPredicates(thirdParty)).
		Watches(&addonv1alpha1.ClusterManagementAddOn{}, handler.EnqueueRequestsFromMapFunc(addonowner.AddonsNamedAfter(mgr.GetClient())),
			builder.WithPredicates(thirdParty)).
		WatchesRawSource(source.Kind(works, &workv1.ManifestWork{},
			handler.TypedEnqueueRequestsFromMapFunc(addonOfWork), ofThirdParty)).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		Complete(r)
}

// addonOfWork maps an addon's ManifestWork to its ManagedClusterAddOn: in
// the work's namespace, or, for a hosted addon's work in its hosting
// cluster's namespace, in the namespace its label names.
func addonOfWork(_ context.Context, w *workv1.ManifestWork) []reconcile.Request {
	ns := w.Namespace
	if hosted := w.Labels[addonv1alpha1.AddonNamespaceLabelKey]; hosted != "" {
		ns = hosted
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: ns, Name: w.Labels[addonv1alpha1.AddonLabelKey]}}}
}

// Reconcile writes the condition, and the last applied configs.
func (r *WorkReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	mca := &addonv1alpha1.ManagedClusterAddOn{}
	if err := r.Client.Get(ctx, req.NamespacedName, mca); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if mca.DeletionTimestamp != nil || r.Skip.Has(mca.Name) {
		return ctrl.Result{}, nil
	}
	cma := &addonv1alpha1.ClusterManagementAddOn{}
	if err := r.Client.Get(ctx, client.ObjectKey{Name: mca.Name}, cma); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err) // not an addon (yet): nobody deploys it
	}
	if !addonowner.ManagedByAddonManager(cma) {
		return ctrl.Result{}, nil // the addon runs its own lifecycle
	}
	works, err := r.works(ctx, mca)
	if err != nil {
		return ctrl.Result{}, err
	}
	old := mca.DeepCopy()
	SetWorkProgressing(klog.FromContext(ctx), mca, works)
	if equality.Semantic.DeepEqual(old.Status, mca.Status) {
		return ctrl.Result{}, nil
	}
	if err := r.Client.Status().Patch(ctx, mca, client.MergeFromWithOptions(old, client.MergeFromWithOptimisticLock{})); err != nil {
		return steps.AfterWrite(ctx, fmt.Errorf("writing the progress of %s/%s: %w", mca.Namespace, mca.Name, err))
	}
	cond := meta.FindStatusCondition(mca.Status.Conditions, addonv1alpha1.ManagedClusterAddOnConditionProgressing)
	ctrl.LoggerFrom(ctx).V(1).Info("Set an addon's progress", "addon", klog.KObj(mca), "reason", cond.Reason, "message", cond.Message)
	return ctrl.Result{}, nil
}

// works are the addon's ManifestWorks: in its cluster's namespace, and for
// a hosted addon also in its hosting cluster's.
func (r *WorkReconciler) works(ctx context.Context, mca *addonv1alpha1.ManagedClusterAddOn) ([]workv1.ManifestWork, error) {
	named, _ := labels.NewRequirement(addonv1alpha1.AddonLabelKey, selection.Equals, []string{mca.Name})
	notHosted, _ := labels.NewRequirement(addonv1alpha1.AddonNamespaceLabelKey, selection.DoesNotExist, nil)
	list := &workv1.ManifestWorkList{}
	if err := r.addonWorks.List(ctx, list, client.InNamespace(mca.Namespace),
		client.MatchingLabelsSelector{Selector: labels.NewSelector().Add(*named, *notHosted)}); err != nil {
		return nil, fmt.Errorf("listing the ManifestWorks of %s/%s: %w", mca.Namespace, mca.Name, err)
	}
	works := list.Items
	if hosting := mca.Annotations[addonv1alpha1.HostingClusterNameAnnotationKey]; hosting != "" {
		hosted := &workv1.ManifestWorkList{}
		if err := r.addonWorks.List(ctx, hosted, client.InNamespace(hosting), client.MatchingLabels{
			addonv1alpha1.AddonLabelKey: mca.Name, addonv1alpha1.AddonNamespaceLabelKey: mca.Namespace,
		}); err != nil {
			return nil, fmt.Errorf("listing the ManifestWorks of %s/%s on its hosting cluster %s: %w", mca.Namespace, mca.Name, hosting, err)
		}
		works = append(works, hosted.Items...)
	}
	return works, nil
}

// SetWorkProgressing sets the Progressing condition of mca, an addon
// deployed by works, as OCM's addon manager does:
//   - False (ConfigurationUnsupported) for a config of a type the addon
//     does not list in status.supportedConfigs;
//   - False (WaitingFor[Hosting]ManifestApplied) until the addon framework
//     has rendered its manifests;
//   - True (Progressing) while it has no work, or a work (but its
//     pre-delete hook) was rendered with other configs than the desired
//     ones, or is not yet Applied and Available at its generation;
//   - else False (Completed), each config's lastAppliedConfig then being
//     its desired one. Once set, lastAppliedConfig stays until the next
//     completion, so that a rollout does not go back and forth.
func SetWorkProgressing(logger klog.Logger, mca *addonv1alpha1.ManagedClusterAddOn, works []workv1.ManifestWork) {
	if unsupported, ok := unsupportedConfig(mca, mca.Status.SupportedConfigs); ok {
		setUnsupported(mca, unsupported)
		return
	}
	if meta.FindStatusCondition(mca.Status.Conditions, addonv1alpha1.ManagedClusterAddOnManifestApplied) == nil {
		setCondition(mca, metav1.ConditionFalse, ReasonWaitingForManifestApplied, "Waiting for ManagedClusterAddOn ManifestApplied condition")
		return
	}
	if mca.Annotations[addonv1alpha1.HostingClusterNameAnnotationKey] != "" &&
		meta.FindStatusCondition(mca.Status.Conditions, addonv1alpha1.ManagedClusterAddOnHostingManifestApplied) == nil {
		setCondition(mca, metav1.ConditionFalse, ReasonWaitingForHostingManifestApplied, "Waiting for ManagedClusterAddOn HostingManifestApplied condition")
		return
	}
	if len(works) == 0 {
		setProgressing(mca, "no addon works")
		return
	}
	for i := range works {
		w := &works[i]
		if strings.HasPrefix(w.Name, constants.PreDeleteHookWorkName(mca.Name)) {
			continue
		}
		if !configsMatch(logger, w, mca) {
			setProgressing(mca, "mca and work configs mismatch")
			return
		}
		if !workReady(w) {
			setProgressing(mca, "work is not ready")
			return
		}
	}
	setCompleted(mca)
}

// configsMatch says whether w was rendered with the configs mca desires:
// its config-spec-hash annotation, which the addon framework writes, has
// every desired config at its spec hash and no other.
func configsMatch(logger klog.Logger, w *workv1.ManifestWork, mca *addonv1alpha1.ManagedClusterAddOn) bool {
	annotation, ok := w.Annotations[workv1.ManifestConfigSpecHashAnnotationKey]
	if !ok {
		return len(mca.Status.ConfigReferences) == 0
	}
	rendered := map[string]string{}
	if err := json.Unmarshal([]byte(annotation), &rendered); err != nil {
		logger.Info("A work's config spec hashes do not parse", "work", klog.KObj(w), "err", err)
		return false
	}
	for _, hash := range rendered {
		if hash == "" {
			return false
		}
	}
	desired, ok := desiredHashes(mca.Status.ConfigReferences)
	return ok && maps.Equal(rendered, desired)
}

// desiredHashes are the spec hashes of the desired configs, keyed as the
// addon framework keys its config-spec-hash annotation:
// <resource>[.<group>]/<namespace>/<name>. It says false while a config
// has no hash yet.
func desiredHashes(refs []addonv1alpha1.ConfigReference) (map[string]string, bool) {
	out := make(map[string]string, len(refs))
	for _, ref := range refs {
		if ref.DesiredConfig == nil || ref.DesiredConfig.SpecHash == "" {
			return nil, false
		}
		resource := ref.Resource
		if ref.Group != "" {
			resource += "." + ref.Group
		}
		out[resource+"/"+ref.DesiredConfig.Namespace+"/"+ref.DesiredConfig.Name] = ref.DesiredConfig.SpecHash
	}
	return out, true
}

// workReady says whether the work agent reports w Applied and Available
// at its current generation.
func workReady(w *workv1.ManifestWork) bool {
	for _, t := range []string{workv1.WorkAvailable, workv1.WorkApplied} {
		c := meta.FindStatusCondition(w.Status.Conditions, t)
		if c == nil || c.Status != metav1.ConditionTrue || c.ObservedGeneration != w.Generation {
			return false
		}
	}
	return true
}
