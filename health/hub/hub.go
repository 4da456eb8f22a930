package hub

import (
	"errors"

	"k8s.io/utils/clock"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/corral-dev/corral/health/hub/clusterhealth"
)

// Options configure the hub half.
type Options struct {
	// Workers per controller; DefaultWorkers when 0.
	Workers int
	// Clock judges staleness; injected for tests.
	Clock clock.PassiveClock
}

// DefaultWorkers of each controller.
const DefaultWorkers = 4

// SetupWithManager registers the hub half's controllers with mgr.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	if opts.Workers <= 0 {
		opts.Workers = DefaultWorkers
	}
	s := mgr.GetScheme()
	if err := errors.Join(clusterv1.Install(s), addonv1alpha1.Install(s)); err != nil {
		return err
	}
	reports, err := Settings.SetupWithManager(mgr, opts.Workers)
	if err != nil {
		return err
	}
	return (&clusterhealth.Reconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorder("corral-health"), Clock: opts.Clock}).SetupWithManager(mgr, reports, opts.Workers)
}
