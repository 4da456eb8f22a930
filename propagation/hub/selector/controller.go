package selector

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/revisionindex"
)

// UnknownKindRetry is how often a propagation selecting a kind the hub
// does not serve is looked at again: the kind's CRD may come.
const UnknownKindRetry = 30 * time.Second

// DefaultWorkers is how many propagations are reconciled at once. A
// reconcile waits on the API server (reading the propagation's
// namespace, writing a revision and the status), so a burst of new
// propagations is bound by how many are in flight: at 4,
// test/benchmark/propagation's 1000 propagations waited on their
// revisions while the hub used 20% of a core and the API server had CPU
// to spare; the distributor, which waits on the revisions, runs 16.
const DefaultWorkers = 16

// Options configure the selector controller.
type Options struct {
	// Workers is how many propagations are reconciled at once; 0 is
	// DefaultWorkers.
	Workers int
	// Uncached are kinds the manager's cache holds only some objects of
	// (the registration hub caches only cluster namespaces, and the RBAC
	// and leases of clusters): they are read from the API server instead.
	Uncached []schema.GroupKind
}

// Reconciler keeps every (Cluster)Propagation's revisions. A request with
// a namespace is a Propagation's, one without a ClusterPropagation's.
type Reconciler struct {
	// Client reads the propagations and revisions and writes them.
	Client client.Client
	// Reader reads the selected objects, as unstructured objects: the
	// manager's cache, whose informers the watches share.
	Reader client.Reader
	// APIReader reads the objects of Uncached kinds, which Reader would
	// not all see.
	APIReader client.Reader
	Uncached  map[schema.GroupKind]bool
	// Mapper resolves the selectors' kinds.
	Mapper meta.RESTMapper
	// Discovery lists the namespaced kinds a Namespace brings.
	Discovery discovery.DiscoveryInterface
	// Watch makes sure the kind's objects are watched; nil watches
	// nothing (unit tests).
	Watch func(ctx context.Context, m *meta.RESTMapping) error
}

// AddToScheme adds the types the controller reads and writes.
func AddToScheme(s *runtime.Scheme) error { return v1alpha1.Install(s) }

// SetupWithManager adds AddToScheme's types to mgr's scheme, indexes the
// propagations by the kinds they select and registers the controller.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	if opts.Workers <= 0 {
		opts.Workers = DefaultWorkers
	}
	if err := AddToScheme(mgr.GetScheme()); err != nil {
		return err
	}
	disc, err := discovery.NewDiscoveryClientForConfig(mgr.GetConfig())
	if err != nil {
		return fmt.Errorf("building the discovery client: %w", err)
	}
	if err := indexSelectedKinds(mgr); err != nil {
		return err
	}
	if err := revisionindex.Register(mgr); err != nil {
		return err
	}
	r := &Reconciler{Client: mgr.GetClient(), Reader: mgr.GetCache(), APIReader: mgr.GetAPIReader(),
		Uncached: map[schema.GroupKind]bool{}, Mapper: mgr.GetRESTMapper(), Discovery: disc}
	for _, gk := range opts.Uncached {
		r.Uncached[gk] = true
	}
	c, err := ctrl.NewControllerManagedBy(mgr).
		Named("propagation-selector").
		// Only a spec change (or a new or deleted propagation) changes
		// what it selects: the status writes of the distributor and the
		// status controller, three or more per propagation and rollout,
		// do not re-select.
		For(&v1alpha1.Propagation{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&v1alpha1.ClusterPropagation{}, &handler.EnqueueRequestForObject{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		// An override policy's change makes a new revision of what it
		// changes (readOverrides).
		Watches(&v1alpha1.OverridePolicy{}, handler.EnqueueRequestsFromMapFunc(r.propagationsOf), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&v1alpha1.ClusterOverridePolicy{}, handler.EnqueueRequestsFromMapFunc(r.propagationsOf), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WithOptions(controller.Options{MaxConcurrentReconciles: opts.Workers}).
		Build(r)
	if err != nil {
		return err
	}
	r.Watch = newWatcher(mgr.GetCache(), c, r.Client).watch
	return nil
}

// scope is what one reconcile works on.
type scope struct {
	// obj is the *Propagation or *ClusterPropagation; original is a copy
	// as read, for the status patch.
	obj, original client.Object
	// namespace is a Propagation's, where it selects; "" for a
	// ClusterPropagation.
	namespace string
	selectors []v1alpha1.ClusterResourceSelector
	policy    v1alpha1.PropagationPolicy
	status    *v1alpha1.PropagationStatus

	// mappings are the selectors' kinds as the hub serves them, in spec
	// order.
	mappings []*meta.RESTMapping
	// selected is the Selected condition to write; nil leaves it.
	selected *metav1.Condition
	// objects are the selected objects, cleaned and sorted.
	objects []*unstructured.Unstructured
	// brought is the Propagation's own Namespace among objects, nil for
	// none.
	brought *unstructured.Unstructured
	// skipped says which objects revision.Skipped dropped, and why.
	skipped []string
	// revisions are the propagation's revisions, oldest first.
	revisions []revisionindex.Revision
	// overrides are the override policies that change objects, for the
	// revision.
	overrides []v1alpha1.OverrideSnapshot
}

// blocked says the selection did not complete: the revisions are left
// as they are.
func (s *scope) blocked() bool {
	return s.selected != nil && s.selected.Status != metav1.ConditionTrue
}

// block records bad input as the Selected condition.
func (s *scope) block(reason, message string) {
	s.selected = &metav1.Condition{Type: v1alpha1.ConditionSelected, Status: metav1.ConditionFalse, Reason: reason, Message: message}
}

// Reconcile runs the steps for one propagation.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	s, err := r.load(ctx, req)
	if s == nil || err != nil {
		return ctrl.Result{}, err
	}
	ctx = ctrl.LoggerInto(ctx, ctrl.LoggerFrom(ctx).WithValues("propagation", req.String()))
	return steps.Run(ctx, s,
		steps.Step[*scope]{Name: "resolve selectors", Run: r.resolve},
		steps.Step[*scope]{Name: "select objects", Run: r.selectObjects},
		steps.Step[*scope]{Name: "bring the namespace", Run: r.bringNamespace},
		steps.Step[*scope]{Name: "read overrides", Run: r.readOverrides},
		steps.Step[*scope]{Name: "list revisions", Run: r.listRevisions},
		steps.Step[*scope]{Name: "write revision", Run: r.writeRevision},
		steps.Step[*scope]{Name: "prune revisions", Run: r.prune},
		steps.Step[*scope]{Name: "update status", Run: r.updateStatus},
	)
}

// load reads the propagation of req into a scope; nil when it is gone or
// going (its revisions go with it, by their owner references).
func (r *Reconciler) load(ctx context.Context, req ctrl.Request) (*scope, error) {
	var s *scope
	if req.Namespace != "" {
		p := &v1alpha1.Propagation{}
		if err := r.Client.Get(ctx, req.NamespacedName, p); err != nil {
			return nil, client.IgnoreNotFound(err)
		}
		s = &scope{obj: p, original: p.DeepCopy(), namespace: p.Namespace, policy: p.Spec.PropagationPolicy, status: &p.Status}
		for _, sel := range p.Spec.ResourceSelectors {
			s.selectors = append(s.selectors, v1alpha1.ClusterResourceSelector{ResourceSelector: sel})
		}
	} else {
		p := &v1alpha1.ClusterPropagation{}
		if err := r.Client.Get(ctx, req.NamespacedName, p); err != nil {
			return nil, client.IgnoreNotFound(err)
		}
		s = &scope{obj: p, original: p.DeepCopy(), selectors: p.Spec.ResourceSelectors, policy: p.Spec.PropagationPolicy, status: &p.Status}
	}
	if !s.obj.GetDeletionTimestamp().IsZero() {
		return nil, nil
	}
	return s, nil
}

// statusOf is the status of a *Propagation or *ClusterPropagation.
func statusOf(obj client.Object) v1alpha1.PropagationStatus {
	switch p := obj.(type) {
	case *v1alpha1.Propagation:
		return p.Status
	case *v1alpha1.ClusterPropagation:
		return p.Status
	}
	return v1alpha1.PropagationStatus{}
}
