package status

import (
	"context"
	"errors"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/aggregate"
	"github.com/corral-dev/corral/propagation/hub/revisionindex"
	"github.com/corral-dev/corral/propagation/hub/workindex"
)

// DefaultWorkers is how many propagations of each kind are reconciled at
// once: as many as the distributor runs, whose rollouts they follow.
const DefaultWorkers = 16

// Options configure the controllers.
type Options struct {
	// Workers per kind; 0 is DefaultWorkers.
	Workers int
}

// AddToScheme adds the types the controllers read and write; templates
// are read and written unstructured.
func AddToScheme(s *runtime.Scheme) error {
	return errors.Join(v1alpha1.Install(s), workv1.Install(s))
}

// SetupWithManager adds AddToScheme's types to mgr's scheme and registers
// one controller per kind, Propagation and ClusterPropagation.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	if opts.Workers <= 0 {
		opts.Workers = DefaultWorkers
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
	for _, namespaced := range []bool{true, false} {
		r := &Reconciler{Client: mgr.GetClient(), Templates: mgr.GetCache(), Namespaced: namespaced}
		if err := r.setup(mgr, opts.Workers); err != nil {
			return err
		}
	}
	return nil
}

// Reconciler aggregates the templates' status of one kind of
// propagation: Propagations (Namespaced) or ClusterPropagations.
type Reconciler struct {
	// Client reads propagations, revisions and works from the cache, and
	// writes the templates' status.
	Client client.Client
	// Templates reads the templates, unstructured: the manager's cache,
	// whose informers of the selected kinds the selector starts. (The
	// manager's client reads unstructured objects from the API server: a
	// GET per reconcile, 5500 of them in test/benchmark/propagation's
	// 1000 propagations.)
	Templates  client.Reader
	Namespaced bool
}

func (r *Reconciler) setup(mgr ctrl.Manager, workers int) error {
	name := "clusterpropagation-status"
	var obj client.Object = &v1alpha1.ClusterPropagation{}
	if r.Namespaced {
		name, obj = "propagation-status", &v1alpha1.Propagation{}
	}
	// The propagation's status changes too (deliveredRevision, clusters),
	// so its every update is looked at.
	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		For(obj).
		Watches(&workv1.ManifestWork{}, handler.EnqueueRequestsFromMapFunc(r.ofWork)).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		Complete(r)
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

// scope is what one reconcile works on.
type scope struct {
	obj    client.Object
	policy *v1alpha1.PropagationPolicy
	status *v1alpha1.PropagationStatus
	// targets are the delivered revision's objects whose status is
	// aggregated.
	targets []target
	// members are, per target (by index), each cluster's member.
	members []map[string]aggregate.Member
}

// Reconcile aggregates the status of one propagation's templates: the
// delivered revision's targets, the clusters' members, the templates'
// status written.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	s := &scope{}
	if r.Namespaced {
		p := &v1alpha1.Propagation{}
		s.obj, s.policy, s.status = p, &p.Spec.PropagationPolicy, &p.Status
	} else {
		p := &v1alpha1.ClusterPropagation{}
		s.obj, s.policy, s.status = p, &p.Spec.PropagationPolicy, &p.Status
	}
	if err := r.Client.Get(ctx, req.NamespacedName, s.obj); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	return steps.Run(ctx, s,
		steps.Step[*scope]{Name: "check enabled", Run: r.checkEnabled},
		steps.Step[*scope]{Name: "read targets", Run: r.readTargets},
		steps.Step[*scope]{Name: "collect members", Run: r.collectMembers},
		steps.Step[*scope]{Name: "write status", Run: r.writeStatus},
	)
}
