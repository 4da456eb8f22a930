package manifestwork

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/corral-dev/corral/work/agent/appliedwork"
	"github.com/corral-dev/corral/work/agent/apply"
	"github.com/corral-dev/corral/work/agent/status"
)

// DefaultEvictionGracePeriod is how long an AppliedManifestWork whose
// ManifestWork vanished from the hub, or that is of another hub, is kept
// before what it applied is deleted (upstream OCM's default).
const DefaultEvictionGracePeriod = 60 * time.Minute

// DefaultMaxConcurrentReconciles is how many works are reconciled at once.
const DefaultMaxConcurrentReconciles = 32

// maxRetryDelay caps the backoff of a work whose manifests keep failing to
// apply: what they wait for (a namespace another work creates, a webhook
// coming up) sends no event the agent follows, so it is tried again at
// least this often, not after the default limiter's 16 minutes.
const maxRetryDelay = 5 * time.Minute

// Options configure the controller.
type Options struct {
	// ClusterName is the cluster namespace on the hub.
	ClusterName string
	// HubHash identifies the hub (appliedwork.HubHash of its address).
	HubHash string
	// AgentID is recorded in the AppliedManifestWorks.
	AgentID string
	// EvictionGracePeriod; DefaultEvictionGracePeriod when zero.
	EvictionGracePeriod time.Duration
	// MaxConcurrentReconciles; DefaultMaxConcurrentReconciles when zero.
	MaxConcurrentReconciles int
	// RawFeedbackJSON returns structured feedback values as raw JSON
	// (the RawFeedbackJsonString feature).
	RawFeedbackJSON bool
	// Clock; the real one when nil.
	Clock clock.Clock
}

// Reconciler applies the ManifestWorks of one cluster namespace.
type Reconciler struct {
	opts    Options
	hub     client.Client
	managed client.Client
	// live reads the managed cluster's API server itself, for an
	// AppliedManifestWork created moments ago that the cache has not seen.
	live    client.Reader
	dynamic dynamic.Interface
	mapper  meta.RESTMapper
	cache   cluster.Cluster
	applier *apply.Applier
	rules   *status.Rules

	ctrl    controller.Controller
	mu      sync.Mutex
	watched map[schema.GroupVersionKind]bool
	waiting map[string]bool // works with a manifest whose kind is not installed
	// readers are the works reading an object they do not own (ReadOnly,
	// or one their adoption policy refused to take over),
	// which its watch events cannot name through owner references.
	readers *readIndex
	// statuses are the statuses last written per work (by UID), and
	// applied the resources last recorded per AppliedManifestWork.
	statuses, applied *writeMemo
	// access remembers the executors' access reviews.
	access *accessCache
	// executors are the clients that write as the works' executors.
	executors *executorClients
}

// SetupWithManager registers the controller, and the one that evicts the
// AppliedManifestWorks of another hub (unmanaged.go), with hubMgr (whose
// cache holds the cluster namespace's ManifestWorks) and managed (the
// managed cluster, which hubMgr must run).
func SetupWithManager(hubMgr ctrl.Manager, managed cluster.Cluster, opts Options) error {
	if opts.ClusterName == "" || opts.HubHash == "" {
		return fmt.Errorf("the work agent needs a cluster name and a hub hash")
	}
	if opts.EvictionGracePeriod == 0 {
		opts.EvictionGracePeriod = DefaultEvictionGracePeriod
	}
	if opts.MaxConcurrentReconciles == 0 {
		opts.MaxConcurrentReconciles = DefaultMaxConcurrentReconciles
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	rules, err := status.NewRules()
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(managed.GetConfig())
	if err != nil {
		return fmt.Errorf("managed cluster client: %w", err)
	}
	r := &Reconciler{
		opts: opts, hub: hubMgr.GetClient(), managed: managed.GetClient(), live: managed.GetAPIReader(), dynamic: dyn,
		mapper: managed.GetRESTMapper(), cache: managed, applier: apply.NewApplier(dyn), rules: rules,
		watched: map[schema.GroupVersionKind]bool{}, waiting: map[string]bool{}, readers: newReadIndex(),
		statuses: newWriteMemo(), applied: newWriteMemo(), access: newAccessCache(opts.Clock),
		executors: newExecutorClients(managed.GetConfig()),
	}
	onlyThisNamespace := predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetNamespace() == opts.ClusterName })
	c, err := ctrl.NewControllerManagedBy(hubMgr).
		Named("workagent-manifestwork").
		For(&workv1.ManifestWork{}, builder.WithPredicates(onlyThisNamespace, predicate.Or(
			predicate.GenerationChangedPredicate{}, deletionChanged(), predicate.AnnotationChangedPredicate{}))).
		WithOptions(controller.Options{MaxConcurrentReconciles: opts.MaxConcurrentReconciles,
			RateLimiter: workqueue.NewTypedWithMaxWaitRateLimiter(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request](), maxRetryDelay)}).
		WatchesRawSource(source.Kind(managed.GetCache(), &workv1.AppliedManifestWork{}, r.appliedWorkHandler(), appliedWorkAppearsOrGoes())).
		WatchesRawSource(source.Kind(managed.GetCache(), crdMeta(), handler.TypedFuncs[*metav1.PartialObjectMetadata, reconcile.Request]{
			CreateFunc: func(_ context.Context, _ event.TypedCreateEvent[*metav1.PartialObjectMetadata], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
				r.retryWaiting(q)
			},
			UpdateFunc: func(_ context.Context, _ event.TypedUpdateEvent[*metav1.PartialObjectMetadata], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
				r.retryWaiting(q)
			},
		})).
		Build(r)
	if err != nil {
		return err
	}
	r.ctrl = c
	return setupUnmanaged(hubMgr, managed, r)
}

func crdMeta() *metav1.PartialObjectMetadata {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
	return m
}

func deletionChanged() predicate.Funcs {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		return (e.ObjectOld.GetDeletionTimestamp() == nil) != (e.ObjectNew.GetDeletionTimestamp() == nil)
	}}
}

func appliedWorkAppearsOrGoes() predicate.TypedFuncs[*workv1.AppliedManifestWork] {
	return predicate.TypedFuncs[*workv1.AppliedManifestWork]{
		UpdateFunc: func(e event.TypedUpdateEvent[*workv1.AppliedManifestWork]) bool {
			return (e.ObjectOld.DeletionTimestamp == nil) != (e.ObjectNew.DeletionTimestamp == nil)
		},
	}
}

func (r *Reconciler) request(work string) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: r.opts.ClusterName, Name: work}}
}

// appliedWorkHandler brings a work back when its AppliedManifestWork is
// deleted or starts being deleted, and when one of this agent's appears
// whose work is not on the hub (the work vanished while the agent was
// away). One that appears for a work the hub has is the agent's own
// doing, and the work's reconcile is already under way: enqueuing it
// again would only have it read the work from a cache that has not caught
// up yet.
func (r *Reconciler) appliedWorkHandler() handler.TypedEventHandler[*workv1.AppliedManifestWork, reconcile.Request] {
	enqueue := func(amw *workv1.AppliedManifestWork, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		if work, ok := appliedwork.WorkName(r.opts.HubHash, amw.Name); ok {
			q.Add(r.request(work))
		}
	}
	return handler.TypedFuncs[*workv1.AppliedManifestWork, reconcile.Request]{
		CreateFunc: func(ctx context.Context, e event.TypedCreateEvent[*workv1.AppliedManifestWork], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			work, ok := appliedwork.WorkName(r.opts.HubHash, e.Object.Name)
			if !ok || e.Object.Spec.AgentID != r.opts.AgentID {
				return
			}
			err := r.hub.Get(ctx, r.request(work).NamespacedName, &workv1.ManifestWork{})
			if err == nil {
				return
			}
			q.Add(r.request(work))
		},
		UpdateFunc: func(_ context.Context, e event.TypedUpdateEvent[*workv1.AppliedManifestWork], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(e.ObjectNew, q)
		},
		DeleteFunc: func(_ context.Context, e event.TypedDeleteEvent[*workv1.AppliedManifestWork], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(e.Object, q)
		},
	}
}

func (r *Reconciler) retryWaiting(q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for work := range r.waiting {
		q.Add(r.request(work))
	}
}

func (r *Reconciler) setWaiting(work string, waiting bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if waiting {
		r.waiting[work] = true
	} else {
		delete(r.waiting, work)
	}
}

// watch makes sure objects of gvk applied by a work are watched (metadata
// only), so that a change made on the managed cluster brings its work
// back.
func (r *Reconciler) watch(mapping *meta.RESTMapping) error {
	gvk := mapping.GroupVersionKind
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.watched[gvk] {
		return nil
	}
	obj := &metav1.PartialObjectMetadata{}
	obj.SetGroupVersionKind(gvk)
	gvr := mapping.Resource
	// enqueue brings back the works that read the object and those it was
	// or is owned by: one whose owner reference was taken out puts it back.
	enqueue := func(o, old *metav1.PartialObjectMetadata, q workqueue.TypedRateLimitingInterface[reconcile.Request], deleted bool) {
		key := apply.Key{GVR: gvr, Namespace: o.Namespace, Name: o.Name}
		if deleted {
			r.applier.Deleted(key)
		} else if r.applier.IsEcho(key, o.ResourceVersion) {
			// This agent's own write: only a work whose owner reference it
			// took out (another work's apply, see serverSideApply) comes back.
			r.enqueueOwners(q, slices.DeleteFunc(slices.Clone(old.OwnerReferences), func(ref metav1.OwnerReference) bool {
				return slices.ContainsFunc(o.OwnerReferences, func(now metav1.OwnerReference) bool { return now.UID == ref.UID })
			}))
			return
		}
		for _, work := range r.readers.of(key) {
			q.Add(r.request(work))
		}
		r.enqueueOwners(q, o.OwnerReferences)
		r.enqueueOwners(q, old.OwnerReferences)
	}
	h := handler.TypedFuncs[*metav1.PartialObjectMetadata, reconcile.Request]{
		// A work reading an object that was not there (ReportDiff) looks
		// again when it is created.
		CreateFunc: func(_ context.Context, e event.TypedCreateEvent[*metav1.PartialObjectMetadata], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			for _, work := range r.readers.of(apply.Key{GVR: gvr, Namespace: e.Object.Namespace, Name: e.Object.Name}) {
				q.Add(r.request(work))
			}
		},
		UpdateFunc: func(_ context.Context, e event.TypedUpdateEvent[*metav1.PartialObjectMetadata], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(e.ObjectNew, e.ObjectOld, q, false)
		},
		DeleteFunc: func(_ context.Context, e event.TypedDeleteEvent[*metav1.PartialObjectMetadata], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(e.Object, e.Object, q, true)
		},
	}
	if err := r.ctrl.Watch(source.Kind(r.cache.GetCache(), obj, h)); err != nil {
		return fmt.Errorf("watching %s on the managed cluster: %w", gvk, err)
	}
	r.watched[gvk] = true
	return nil
}

// enqueueOwners brings back the works of this hub among refs.
func (r *Reconciler) enqueueOwners(q workqueue.TypedRateLimitingInterface[reconcile.Request], refs []metav1.OwnerReference) {
	for _, ref := range refs {
		if work, ok := appliedwork.WorkName(r.opts.HubHash, ref.Name); ok && appliedwork.IsAppliedWork(ref) {
			q.Add(r.request(work))
		}
	}
}

// Reconcile brings one ManifestWork and the managed cluster together.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (ctrl.Result, error) {
	work := &workv1.ManifestWork{}
	err := r.hub.Get(ctx, req.NamespacedName, work)
	if apierrors.IsNotFound(err) {
		return r.reconcileVanished(ctx, req.Name)
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	s := &scope{work: work, before: work.DeepCopy()}
	if work.DeletionTimestamp != nil {
		return r.reconcileDelete(ctx, s)
	}
	return r.reconcileLive(ctx, s)
}
