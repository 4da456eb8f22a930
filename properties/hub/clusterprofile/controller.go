package clusterprofile

import (
	"context"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	cpv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/corral-dev/corral/internal/steps"
)

// DefaultNamespace holds the ClusterProfiles unless configured otherwise:
// the namespace OCM's hub components live in.
const DefaultNamespace = "open-cluster-management"

// ManagerName is corral's name as a cluster manager: the profiles'
// spec.clusterManager.name and x-k8s.io/cluster-manager label.
const ManagerName = "corral"

// Reconciler keeps ClusterProfiles.
type Reconciler struct {
	Client client.Client
	// Namespace holds the profiles; DefaultNamespace when empty.
	Namespace string
	Clock     clock.PassiveClock

	namespaceMade atomic.Bool // Namespace exists, as far as this controller knows
}

// SetupWithManager registers the controller.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, workers int) error {
	if r.Namespace == "" {
		r.Namespace = DefaultNamespace
	}
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("properties-cluster-profile").
		For(&clusterv1.ManagedCluster{}).
		Watches(&cpv1alpha1.ClusterProfile{}, handler.EnqueueRequestsFromMapFunc(func(_ context.Context, obj client.Object) []reconcile.Request {
			name := obj.GetLabels()[clusterv1.ClusterNameLabelKey]
			if obj.GetNamespace() != r.Namespace || name == "" || obj.GetLabels()[cpv1alpha1.LabelClusterManagerKey] != ManagerName {
				return nil
			}
			return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: name}}}
		})).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		Complete(r)
}

type scope struct {
	name    string
	cluster *clusterv1.ManagedCluster
	profile *cpv1alpha1.ClusterProfile
}

// Reconcile keeps one cluster's profile.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return steps.Run(ctx, &scope{name: req.Name},
		steps.Step[*scope]{Name: "load", Run: r.load},
		steps.Step[*scope]{Name: "namespace", Run: r.ensureNamespace},
		steps.Step[*scope]{Name: "profile", Run: r.ensureProfile},
		steps.Step[*scope]{Name: "status", Run: r.updateStatus},
	)
}
