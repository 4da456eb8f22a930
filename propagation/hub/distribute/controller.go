package distribute

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/corral-dev/corral/internal/rollout"
	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/revisionindex"
	"github.com/corral-dev/corral/propagation/hub/workindex"
	"github.com/corral-dev/corral/work/adoption"
)

// PlacementIndex is the cache index of (Cluster)Propagations by the
// placements they name, as <namespace>/<placement>.
const PlacementIndex = "apps.corral.dev/placement-refs"

// DefaultWorkers is how many propagations of each kind are reconciled at
// once. A reconcile writes its works one after another, each waiting on
// the API server, so delivering many propagations is bound by how many
// writes are in flight, not by the hub's CPU: at 4 workers,
// test/benchmark/propagation's hub used 30% of a core while creating
// 10 000 works, and the floor's bare client was fastest at 64 writers.
const DefaultWorkers = 16

// Options configure the controllers.
type Options struct {
	// Workers per kind; 0 is DefaultWorkers.
	Workers int
	// Clock is what rollouts (minSuccessTime, progressDeadline) are
	// measured by; nil is the real clock.
	Clock clock.WithDelayedExecution
	// ManifestConfigs, when set, gives the manifestConfigs of the work
	// carrying manifests (status feedback for aggregated status); they
	// are compared as given, so give them as the API server defaults them.
	ManifestConfigs func(manifests []workv1.Manifest) []workv1.ManifestConfigOption
	// ProgressInterval is how long the status of a propagation in
	// progress waits after its last write; 0 is DefaultProgressInterval,
	// negative writes every change at once.
	ProgressInterval time.Duration
}

// AddToScheme adds the types the controllers read and write.
func AddToScheme(s *runtime.Scheme) error {
	return errors.Join(v1alpha1.Install(s), workv1.Install(s), clusterv1.Install(s), clusterv1alpha1.Install(s), clusterv1beta1.Install(s))
}

// SetupWithManager adds AddToScheme's types to mgr's scheme, registers
// PlacementIndex and one controller per kind, Propagation and
// ClusterPropagation.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	if opts.Workers <= 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	if opts.ProgressInterval == 0 {
		opts.ProgressInterval = DefaultProgressInterval
	}
	if err := AddToScheme(mgr.GetScheme()); err != nil {
		return err
	}
	if err := workindex.Register(mgr); err != nil {
		return err
	}
	if err := revisionindex.Register(mgr); err != nil {
		return err
	}
	for _, kind := range []client.Object{&v1alpha1.Propagation{}, &v1alpha1.ClusterPropagation{}} {
		if err := mgr.GetFieldIndexer().IndexField(context.Background(), kind, PlacementIndex, indexByPlacement); err != nil {
			return fmt.Errorf("indexing %T by placement: %w", kind, err)
		}
	}
	for _, namespaced := range []bool{true, false} {
		r := &Reconciler{Client: mgr.GetClient(), Live: mgr.GetAPIReader(), Clock: opts.Clock, Namespaced: namespaced, ManifestConfigs: opts.ManifestConfigs,
			Mapper: mgr.GetRESTMapper(), pace: newPacer(opts.ProgressInterval)}
		if err := r.setup(mgr, opts.Workers); err != nil {
			return err
		}
	}
	return nil
}

// Reconciler delivers the revisions of one kind: Propagations
// (Namespaced) or ClusterPropagations.
type Reconciler struct {
	Client client.Client
	// Live reads the API server itself: before a deleted propagation lets
	// go, its works are listed there, so that one created moments ago,
	// not in the cache yet, goes with the others.
	Live client.Reader
	// Clock is Options.Clock: rollouts are decided at its time, and a
	// propagation is looked at again when it reaches a rollout deadline.
	Clock      clock.WithDelayedExecution
	Namespaced bool
	// ManifestConfigs is Options.ManifestConfigs.
	ManifestConfigs func(manifests []workv1.Manifest) []workv1.ManifestConfigOption
	// Mapper maps the delivered objects' kinds to the resources a work's
	// manifestConfigs name (adoption).
	Mapper meta.RESTMapper

	recheck *rollout.Rechecker
	// pace holds back the status writes of propagations in progress;
	// nil holds back none.
	pace *pacer
}

func (r *Reconciler) newObject() client.Object {
	if r.Namespaced {
		return &v1alpha1.Propagation{}
	}
	return &v1alpha1.ClusterPropagation{}
}

func (r *Reconciler) setup(mgr ctrl.Manager, workers int) error {
	name := "clusterpropagation-distribute"
	if r.Namespaced {
		name = "propagation-distribute"
	}
	r.recheck = rollout.NewRechecker(r.Clock)
	b := ctrl.NewControllerManagedBy(mgr).
		Named(name).
		For(r.newObject(), builder.WithPredicates(predicate.Or[client.Object](predicate.GenerationChangedPredicate{}, finalizing{}))).
		Watches(r.newRevision(), handler.EnqueueRequestsFromMapFunc(r.ofRevision)).
		Watches(&workv1.ManifestWork{}, handler.EnqueueRequestsFromMapFunc(r.ofWork)).
		Watches(&clusterv1.ManagedCluster{}, handler.EnqueueRequestsFromMapFunc(r.onCluster), builder.WithPredicates(overridesSee{})).
		WatchesRawSource(r.recheck.Source()).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers})
	return rollout.WatchPlacements(b, r.naming).Complete(r)
}

func (r *Reconciler) newRevision() client.Object {
	if r.Namespaced {
		return &v1alpha1.PropagationRevision{}
	}
	return &v1alpha1.ClusterPropagationRevision{}
}

// finalizing passes the updates a propagation's generation does not
// count: its finalizer put on (the reconcile that added it stopped there)
// and its deletion.
type finalizing struct{ predicate.Funcs }

func (finalizing) Update(e event.UpdateEvent) bool {
	if e.ObjectOld == nil || e.ObjectNew == nil {
		return false
	}
	return !e.ObjectNew.GetDeletionTimestamp().IsZero() || !slices.Equal(e.ObjectOld.GetFinalizers(), e.ObjectNew.GetFinalizers())
}

// indexByPlacement is the PlacementIndex function.
func indexByPlacement(obj client.Object) []string {
	switch obj.(type) {
	case *v1alpha1.Propagation, *v1alpha1.ClusterPropagation:
	default:
		return nil
	}
	refs := view(obj).refs
	keys := make([]string, 0, len(refs))
	for _, ref := range refs {
		keys = append(keys, ref.String())
	}
	return keys
}

// ofRevision maps a revision to the propagation its label names.
func (r *Reconciler) ofRevision(_ context.Context, obj client.Object) []reconcile.Request {
	name := obj.GetLabels()[v1alpha1.LabelPropagation]
	if name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: name}}}
}

// ofWork maps a work to the propagation of this reconciler's kind its
// labels name.
func (r *Reconciler) ofWork(_ context.Context, obj client.Object) []reconcile.Request {
	l := obj.GetLabels()
	name := l[v1alpha1.LabelPropagation]
	ns, namespaced := l[v1alpha1.LabelPropagationNamespace]
	if name == "" || namespaced != r.Namespaced {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}}
}

// overridesSee passes the changes of a ManagedCluster an override may
// read: its labels and its claims.
type overridesSee struct{ predicate.Funcs }

func (overridesSee) Update(e event.UpdateEvent) bool {
	old, okOld := e.ObjectOld.(*clusterv1.ManagedCluster)
	cur, okNew := e.ObjectNew.(*clusterv1.ManagedCluster)
	if !okOld || !okNew {
		return false
	}
	return !maps.Equal(old.Labels, cur.Labels) || !slices.Equal(old.Status.ClusterClaims, cur.Status.ClusterClaims)
}

// onCluster maps a cluster to the propagations of this reconciler's kind
// with works on it: what an override makes of them may change with the
// cluster's labels and claims. A cluster the placements newly select
// comes through their decisions.
func (r *Reconciler) onCluster(ctx context.Context, obj client.Object) []reconcile.Request {
	works := &workv1.ManifestWorkList{}
	if err := r.Client.List(ctx, works, client.InNamespace(obj.GetName()), client.HasLabels{v1alpha1.LabelPropagation}, client.UnsafeDisableDeepCopy); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing the propagations' ManifestWorks of a cluster", "cluster", obj.GetName())
		return nil
	}
	// A propagation's parts repeat it: the queue keeps one request.
	var out []reconcile.Request
	for i := range works.Items {
		out = append(out, r.ofWork(ctx, &works.Items[i])...)
	}
	return out
}

// naming lists the propagations of this reconciler's kind that name the
// placement: a Propagation names those of its own namespace only.
func (r *Reconciler) naming(ctx context.Context, namespace, placement string) []reconcile.Request {
	match := client.MatchingFields{PlacementIndex: namespace + "/" + placement}
	var keys []types.NamespacedName
	if r.Namespaced {
		list := &v1alpha1.PropagationList{}
		if err := r.Client.List(ctx, list, client.InNamespace(namespace), match); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "Listing the Propagations of a placement", "placement", namespace+"/"+placement)
			return nil
		}
		for _, p := range list.Items {
			keys = append(keys, client.ObjectKeyFromObject(&p))
		}
	} else {
		list := &v1alpha1.ClusterPropagationList{}
		if err := r.Client.List(ctx, list, match); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "Listing the ClusterPropagations of a placement", "placement", namespace+"/"+placement)
			return nil
		}
		for _, p := range list.Items {
			keys = append(keys, client.ObjectKeyFromObject(&p))
		}
	}
	reqs := make([]reconcile.Request, 0, len(keys))
	for _, k := range keys {
		reqs = append(reqs, reconcile.Request{NamespacedName: k})
	}
	return reqs
}

// scope is what one reconcile works on.
type scope struct {
	p        propagation
	original client.Object
	// works are the propagation's ManifestWorks in every cluster namespace.
	works []workv1.ManifestWork
	// newest is the newest revision's number, 0 when there is none.
	newest int64
	// delivered is the revision to deliver, nil when there is none (the
	// condition says why): then nothing is written to any cluster.
	delivered *revision
	// contents are what each cluster receives of the delivered revision.
	contents *contents
	// adoption is the works' adoption policy, and strategies the update
	// strategies it gives the delivered objects (strategies).
	adoption   adoption.Policy
	strategies map[workv1.ResourceIdentifier]*workv1.UpdateStrategy
	// revisionProblem and revisionMessage say why nothing is delivered.
	revisionProblem, revisionMessage string
	now                              time.Time
	// placements is what the rollout found for each placement ref.
	placements []placementResult
	// rolloutErr is what went wrong writing works, for the status.
	rolloutErr error
	// wroteWorks says a work was created or updated.
	wroteWorks bool
}

// Reconcile runs the steps for one propagation: deletion, or finalizer,
// works, revision, rollout and status.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	obj := r.newObject()
	if err := r.Client.Get(ctx, req.NamespacedName, obj); err != nil {
		if apierrors.IsNotFound(err) {
			if r.recheck != nil {
				r.recheck.Forget(req.NamespacedName)
			}
			r.pace.forget(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	s := &scope{p: view(obj), original: obj.DeepCopyObject().(client.Object), now: r.Clock.Now()}
	if !obj.GetDeletionTimestamp().IsZero() {
		return steps.Run(ctx, s,
			steps.Step[*scope]{Name: "list works", Run: r.listWorks},
			steps.Step[*scope]{Name: "finalize", Run: r.finalize},
		)
	}
	return steps.Run(ctx, s,
		steps.Step[*scope]{Name: "add finalizer", Run: r.addFinalizer},
		steps.Step[*scope]{Name: "list works", Run: r.listWorks},
		steps.Step[*scope]{Name: "pick revision", Run: r.pickRevision},
		steps.Step[*scope]{Name: "roll out", Run: r.rollOut},
		steps.Step[*scope]{Name: "update status", Run: r.updateStatus},
	)
}
