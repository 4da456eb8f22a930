// Package hub wires the hub half of corral's registration core into a
// controller-runtime manager: the one setup seam the `corral hub` binary and
// the integration suites both call.
package hub

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"

	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/compact"
	"github.com/corral-dev/corral/registration/hub/clocksync"
	"github.com/corral-dev/corral/registration/hub/clusterset"
	"github.com/corral-dev/corral/registration/hub/clustersetbinding"
	"github.com/corral-dev/corral/registration/hub/csrapproval"
	"github.com/corral-dev/corral/registration/hub/lease"
	"github.com/corral-dev/corral/registration/hub/managedcluster"
	"github.com/corral-dev/corral/registration/hub/taint"
)

// Options configure the registration hub.
type Options struct {
	// Clock is injected for tests; nil means the real clock.
	Clock clock.PassiveClock
	// LeaseGraceMultiplier times a cluster's leaseDurationSeconds is how
	// long its lease may go unrenewed; 0 means lease.DefaultGraceMultiplier.
	LeaseGraceMultiplier int
	// AutoApproveUsers may have an accepted cluster's join request approved
	// without `corral accept`. Empty by default.
	AutoApproveUsers []string
	// Workers is how many clusters each controller works on at once; 0
	// means DefaultWorkers.
	Workers int
	// Only, when not nil, names the controllers that run (Controllers),
	// and then the shared ClusterRoles are not installed: for suites that
	// test one controller. nil runs them all.
	Only []string
}

// DefaultWorkers lets each controller wait on several API calls at once: a
// cluster's acceptance is a handful of sequential writes. Measured with a
// thousand clusters accepted at once (test/benchmark/registration), more
// writes in flight also cost the API server and etcd less CPU per write:
// 48 took 5.7-6.1 s at 95-98 MB of hub memory where 16 took 7.3-8.8 s at
// 90 MB; 64 was as fast but reached 100 MB, 128 was faster (5.8-6.0 s)
// at 100-105 MB, and 256 and 512 slower and larger.
const DefaultWorkers = 48

// Client limits of the hub's controllers. Accepting a cluster is about ten
// small writes, and a thousand clusters may arrive at once: the limits
// stay above what a hub's API server can take, which protects itself with
// priority and fairness, and only stop a controller gone wrong from
// sending without bound. client-go's defaults (5 per second) would take
// half an hour for those thousand.
const (
	DefaultQPS   = 5000
	DefaultBurst = 10000
)

// WithClientLimits returns a copy of cfg with the hub's client limits,
// unless cfg sets its own.
func WithClientLimits(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	if cfg.QPS == 0 {
		cfg.QPS = DefaultQPS
	}
	if cfg.Burst == 0 {
		cfg.Burst = DefaultBurst
	}
	return cfg
}

// Scheme holds the types the registration hub reads and writes.
func Scheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return nil, err
	}
	if err := clusterv1.Install(s); err != nil {
		return nil, err
	}
	if err := clusterv1beta2.Install(s); err != nil {
		return nil, err
	}
	return s, nil
}

// CacheOptions keep the manager's caches to what registration owns: only
// the namespaces, leases and RBAC labelled with a cluster name, and none
// of their managedFields, which no hub controller reads and which are
// most of a small object's size; every object compacted
// (compact.Transform).
func CacheOptions() cache.Options {
	owned, _ := labels.NewRequirement(clusterv1.ClusterNameLabelKey, selection.Exists, nil)
	selector := labels.NewSelector().Add(*owned)
	return cache.Options{DefaultTransform: compact.Transform(), ByObject: map[client.Object]cache.ByObject{
		&corev1.Namespace{}:          {Label: selector},
		&coordinationv1.Lease{}:      {Label: selector},
		&rbacv1.ClusterRole{}:        {Label: selector},
		&rbacv1.ClusterRoleBinding{}: {Label: selector},
		&rbacv1.RoleBinding{}:        {Label: selector},
	}}
}

// NewManager returns a manager for the registration hub at cfg: opts with
// the hub's client limits (WithClientLimits), its Scheme unless opts has
// one, and its cache restrictions (CacheOptions) added to opts.Cache. The
// binary, the embedded hub and the test suites all build theirs here.
func NewManager(cfg *rest.Config, opts ctrl.Options) (ctrl.Manager, error) {
	if opts.Scheme == nil {
		scheme, err := Scheme()
		if err != nil {
			return nil, err
		}
		opts.Scheme = scheme
	}
	if opts.Cache.ByObject == nil {
		opts.Cache.ByObject = map[client.Object]cache.ByObject{}
	}
	owned := CacheOptions()
	for obj, by := range owned.ByObject {
		opts.Cache.ByObject[obj] = by
	}
	if opts.Cache.DefaultTransform == nil {
		opts.Cache.DefaultTransform = owned.DefaultTransform
	}
	return ctrl.NewManager(WithClientLimits(cfg), opts)
}

// The registration core's controllers, by the names Options.Only takes.
const (
	ControllerCSRApproval       = "csrapproval"
	ControllerManagedCluster    = "managedcluster"
	ControllerLease             = "lease"
	ControllerTaint             = "taint"
	ControllerClusterSet        = "clusterset"
	ControllerClusterSetBinding = "clustersetbinding"
)

// SetupWithManager registers the registration hub's controllers. The
// ClusterRole every cluster namespace binds (RegistrationClusterRole) is
// installed with the hub (deploy/charts), not by them: they only bind it.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	if opts.Workers <= 0 {
		opts.Workers = DefaultWorkers
	}
	kube, err := kubernetes.NewForConfig(mgr.GetConfig())
	if err != nil {
		return err
	}
	controllers := map[string]interface {
		SetupWithManager(ctrl.Manager, int) error
	}{
		ControllerCSRApproval: &csrapproval.Reconciler{
			Client:           mgr.GetClient(),
			Kube:             kube,
			Recorder:         mgr.GetEventRecorder("corral-csr-approval"),
			AutoApproveUsers: opts.AutoApproveUsers,
		},
		ControllerManagedCluster: &managedcluster.Reconciler{
			Client:   mgr.GetClient(),
			Recorder: mgr.GetEventRecorder("corral-registration"),
			Clock:    opts.Clock,
		},
		ControllerLease: &lease.Reconciler{Client: mgr.GetClient(), Clock: opts.Clock, GraceMultiplier: opts.LeaseGraceMultiplier,
			ClockSync: &clocksync.Checker{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorder("corral-clocksync"), Clock: opts.Clock}},
		ControllerTaint:      &taint.Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Clock: opts.Clock},
		ControllerClusterSet: &clusterset.Reconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorder("corral-clusterset")},
		ControllerClusterSetBinding: &clustersetbinding.Reconciler{
			Client:   mgr.GetClient(),
			Recorder: mgr.GetEventRecorder("corral-clustersetbinding"),
		},
	}
	var errs []error
	for _, name := range Controllers() {
		if opts.Only == nil || slices.Contains(opts.Only, name) {
			errs = append(errs, controllers[name].SetupWithManager(mgr, opts.Workers))
		}
	}
	for _, name := range opts.Only {
		if controllers[name] == nil {
			errs = append(errs, fmt.Errorf("no registration controller is named %q: the names are %s", name, strings.Join(Controllers(), ", ")))
		}
	}
	return errors.Join(errs...)
}

// Controllers names the registration core's controllers, in the order
// they are set up.
func Controllers() []string {
	return []string{ControllerCSRApproval, ControllerManagedCluster, ControllerLease,
		ControllerTaint, ControllerClusterSet, ControllerClusterSetBinding}
}
