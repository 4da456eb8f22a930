package managedcluster

import (
	"context"
	"fmt"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/registration/common"
	"github.com/corral-dev/corral/registration/hub/lease"
)

// FieldOwner is the field manager of everything this controller applies.
const FieldOwner = "corral-registration"

// Reconciler makes the hub side of each ManagedCluster match its acceptance.
type Reconciler struct {
	Client   client.Client
	Recorder events.EventRecorder
	Clock    clock.PassiveClock
	// Live reads what the cache does not hold (a namespace that is not a
	// cluster's, what a deleted cluster's namespace holds); the manager's
	// API reader when nil.
	Live client.Reader
	// WorkAddOns are the ManagedClusterAddOns whose agents apply the
	// cluster's ManifestWorks: a deleted cluster's go after its works (see
	// deleteContent). DefaultWorkAddOns when nil.
	WorkAddOns []string
}

// scope is what one reconcile works on.
type scope struct {
	cluster  *clusterv1.ManagedCluster
	original *clusterv1.ManagedCluster
	// refused is why the hub does not accept the cluster although an
	// admin did: its name would take what is not its own.
	refused string
}

// SetupWithManager registers the controller, with workers reconciles at
// once: ManagedClusters, the namespaces labelled with a cluster name so
// that a namespace going away finishes that cluster's deletion, and the
// RBAC labelled so (see rbacEvents). It makes an accepted cluster's lease
// before it says the cluster accepted; the lease controller makes it
// again when it goes missing later.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, workers int) error {
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	if r.Live == nil {
		r.Live = mgr.GetAPIReader()
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("managedcluster-acceptance").
		For(&clusterv1.ManagedCluster{}, builder.WithPredicates(predicate.Or[client.Object](
			acceptanceChanged{}, finalizerLostOrDeletion{}))).
		Watches(&corev1.Namespace{}, handler.EnqueueRequestsFromMapFunc(clusterOfLabelled),
			builder.WithPredicates(namespaceGoing{})).
		Watches(&rbacv1.ClusterRole{}, r.rbacEvents()).
		Watches(&rbacv1.ClusterRoleBinding{}, r.rbacEvents()).
		Watches(&rbacv1.RoleBinding{}, r.rbacEvents()).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		Complete(r)
}

// clusterOfLabelled maps an object labelled with a cluster name to it.
func clusterOfLabelled(_ context.Context, obj client.Object) []reconcile.Request {
	name := obj.GetLabels()[clusterv1.ClusterNameLabelKey]
	if name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: name}}}
}

// Reconcile runs the deletion steps for a deleted cluster, else the
// acceptance or denial steps.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	cluster := &clusterv1.ManagedCluster{}
	if err := r.Client.Get(ctx, req.NamespacedName, cluster); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	s := &scope{cluster: cluster, original: cluster.DeepCopy()}
	switch {
	case !cluster.DeletionTimestamp.IsZero():
		return steps.Run(ctx, s,
			steps.Step[*scope]{Name: "delete content", Run: r.deleteContent},
			steps.Step[*scope]{Name: "delete RBAC", Run: r.deleteRBAC},
			steps.Step[*scope]{Name: "delete namespace", Run: r.deleteNamespace},
			steps.Step[*scope]{Name: "remove finalizer", Run: r.removeFinalizer},
		)
	case cluster.Spec.HubAcceptsClient:
		return steps.Run(ctx, s,
			steps.Step[*scope]{Name: "add finalizer", Run: r.addFinalizer},
			steps.Step[*scope]{Name: "release works of a namespace going", Run: r.releaseGoingNamespace},
			steps.Step[*scope]{Name: "apply namespace", Run: r.applyNamespace},
			steps.Step[*scope]{Name: "apply RBAC", Run: r.applyRBAC},
			steps.Step[*scope]{Name: "create lease", Run: r.createLease},
			steps.Step[*scope]{Name: "update status", Run: r.updateStatus},
		)
	default:
		return steps.Run(ctx, s,
			steps.Step[*scope]{Name: "add finalizer", Run: r.addFinalizer},
			steps.Step[*scope]{Name: "release works of a namespace going", Run: r.releaseGoingNamespace},
			steps.Step[*scope]{Name: "revoke RBAC", Run: r.revokeRBAC},
			steps.Step[*scope]{Name: "update status", Run: r.updateStatus},
		)
	}
}

// createLease creates the cluster's lease if it is missing; the agent may
// only update it. It never touches an existing lease: its renewTime is the
// agent's.
func (r *Reconciler) createLease(ctx context.Context, s *scope) (steps.Result, error) {
	name := s.cluster.Name
	// The hub caches no leases (see the lease package).
	err := r.live().Get(ctx, types.NamespacedName{Namespace: name, Name: common.LeaseName}, &coordinationv1.Lease{},
		&client.GetOptions{Raw: &metav1.GetOptions{ResourceVersion: "0"}})
	if !apierrors.IsNotFound(err) {
		return steps.Continue, err
	}
	if err := r.Client.Create(ctx, lease.New(name, r.Clock.Now())); err != nil && !apierrors.IsAlreadyExists(err) {
		return steps.Continue, fmt.Errorf("creating lease %s/%s: %w", name, common.LeaseName, err)
	}
	return steps.Continue, nil
}
