package clusterhealth

import (
	"context"
	"time"

	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/addons/configmapchannel"
	"github.com/corral-dev/corral/health/api"
	"github.com/corral-dev/corral/internal/steps"
)

// Reconciler keeps clusters' health condition and taint.
type Reconciler struct {
	Client client.Client
	// Reports reads the addon's ConfigMaps: the cache SetupWithManager
	// watches them through.
	Reports  client.Reader
	Recorder events.EventRecorder
	Clock    clock.PassiveClock
}

// SetupWithManager registers the controller.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, reports cache.Cache, workers int) error {
	r.Reports = reports
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	return configmapchannel.SetupClusterController(mgr, "health-cluster", api.AddonName, reports, workers, r)
}

// conflictRetry is how soon a taint write that lost a race looks again.
const conflictRetry = 200 * time.Millisecond

type scope struct {
	name     string
	cluster  *clusterv1.ManagedCluster
	enabled  bool
	report   *api.Report
	settings api.Settings
	// stale is how long until the report goes stale.
	stale time.Duration
}

// Reconcile keeps one cluster's health condition and taint.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return steps.Run(ctx, &scope{name: req.Name},
		steps.Step[*scope]{Name: "load", Run: r.load},
		steps.Step[*scope]{Name: "condition", Run: r.updateCondition},
		steps.Step[*scope]{Name: "taint", Run: r.updateTaint},
	)
}
