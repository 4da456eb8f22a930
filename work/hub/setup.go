package hub

import (
	"errors"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/clock"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/corral-dev/corral/work/hub/replicaset"
	"github.com/corral-dev/corral/work/hub/ttl"
)

// DefaultWorkers is how many ManifestWorkReplicaSets are reconciled at once.
const DefaultWorkers = 4

// Options configure the work addon's hub half.
type Options struct {
	// Clock measures rollouts (minSuccessTime, progressDeadline); nil is
	// the real clock. Tests inject a fake one.
	Clock clock.WithDelayedExecution
	// Workers of the ManifestWorkReplicaSet controller; 0 is DefaultWorkers.
	Workers int
	// TTLClock is what a completed ManifestWork's ttlSecondsAfterFinished
	// is measured by; nil is the real clock. Not Clock: the completion time
	// it is measured from is the agent's wall-clock time, which a test's
	// fake rollout clock knows nothing of.
	TTLClock clock.PassiveClock
}

// AddToScheme adds the types the hub half reads and writes.
func AddToScheme(s *runtime.Scheme) error {
	return errors.Join(workv1.Install(s), workv1alpha1.Install(s), clusterv1beta1.Install(s))
}

// SetupWithManager adds AddToScheme's types to mgr's scheme and registers
// the ManifestWorkReplicaSet controller and the one deleting completed
// ManifestWorks after their TTL, which run while mgr leads.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	if opts.Workers <= 0 {
		opts.Workers = DefaultWorkers
	}
	if err := AddToScheme(mgr.GetScheme()); err != nil {
		return err
	}
	if err := (&replicaset.Reconciler{Client: mgr.GetClient(), Clock: opts.Clock}).SetupWithManager(mgr, opts.Workers); err != nil {
		return err
	}
	return (&ttl.Reconciler{Client: mgr.GetClient(), Clock: opts.TTLClock}).SetupWithManager(mgr)
}
