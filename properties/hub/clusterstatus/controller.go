package clusterstatus

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/events"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/addons/configmapchannel"
	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/properties/api"
)

// Condition of the properties ManagedClusterAddOn, and its reasons.
const (
	ConditionClaimsWithinLimits = "ClaimsWithinLimits"
	ReasonClaimsWithinLimits    = "ClaimsWithinLimits"
	ReasonClaimsTruncated       = "ClaimsTruncated"
)

// Reconciler reflects reports into ManagedClusters.
type Reconciler struct {
	Client client.Client
	// Reports reads the addon's ConfigMaps: the cache SetupWithManager
	// watches them through.
	Reports client.Reader
	// Live reads the API server itself: a disabled addon's report is
	// read again there before its properties are removed, so that a
	// report the cache still holds after its deletion removes nothing.
	Live     client.Reader
	Recorder events.EventRecorder
}

// SetupWithManager registers the controller.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, reports cache.Cache, workers int) error {
	r.Reports = reports
	return configmapchannel.SetupClusterController(mgr, "properties-cluster-status", api.AddonName, reports, workers, r)
}

// scope is one reconcile's state.
type scope struct {
	name              string
	cluster, original *clusterv1.ManagedCluster
	addon             *addonv1alpha1.ManagedClusterAddOn
	report            *api.Report
	// leftover is the report of an addon no longer enabled.
	leftover *corev1.ConfigMap
}

// Reconcile reflects the cluster's report.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return steps.Run(ctx, &scope{name: req.Name},
		steps.Step[*scope]{Name: "load", Run: r.load},
		steps.Step[*scope]{Name: "forget", Run: r.forget},
		steps.Step[*scope]{Name: "reflect status", Run: r.reflectStatus},
		steps.Step[*scope]{Name: "report truncation", Run: r.reportTruncation},
	)
}
