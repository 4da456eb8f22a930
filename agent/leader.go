package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"
)

// LeaseName is the Lease on the managed cluster that elects the one agent
// of several copies (the replicas of the agent Deployment) that runs.
const LeaseName = "corral-agent"

// timing is how the election runs.
type timing struct{ leaseDuration, renewDeadline, retryPeriod time.Duration }

// defaultTiming is client-go's usual values, as the hub's. A copy that
// stops cleanly releases the Lease at once; one that dies is replaced
// within the lease duration.
var defaultTiming = timing{leaseDuration: 15 * time.Second, renewDeadline: 10 * time.Second, retryPeriod: 2 * time.Second}

// errLostLease is returned when another copy took the Lease while this one
// ran: the process exits, and its restart campaigns again.
var errLostLease = errors.New("lost the agent's Lease to another copy: stopping, so that only one copy runs")

// runElected runs fn once this process holds the Lease namespace/LeaseName
// on the managed cluster, until fn returns or ctx ends (releasing the
// Lease) or the Lease is lost (errLostLease).
func runElected(ctx context.Context, kube kubernetes.Interface, namespace string, t timing, fn func(context.Context) error) error {
	log := klog.FromContext(ctx)
	host, _ := os.Hostname()
	identity := host + "_" + string(uuid.NewUUID())
	electCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	// leading is the context client-go gives the leader: it ends when the
	// Lease is lost or the election ends.
	leading := make(chan context.Context, 1)
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: &resourcelock.LeaseLock{
			LeaseMeta:  metav1.ObjectMeta{Namespace: namespace, Name: LeaseName},
			Client:     kube.CoordinationV1(),
			LockConfig: resourcelock.ResourceLockConfig{Identity: identity},
		},
		LeaseDuration: t.leaseDuration, RenewDeadline: t.renewDeadline, RetryPeriod: t.retryPeriod,
		ReleaseOnCancel: true,
		Name:            LeaseName,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) { leading <- ctx },
			OnStoppedLeading: func() {},
			OnNewLeader: func(leader string) {
				if leader != identity {
					log.Info("Another copy leads; this one takes over when it goes", "leader", leader)
				}
			},
		},
	})
	if err != nil {
		return fmt.Errorf("electing the agent among its copies: %w", err)
	}
	electionDone := make(chan struct{})
	go func() {
		defer close(electionDone)
		elector.Run(electCtx)
	}()
	var lctx context.Context
	select {
	case <-electionDone:
		return nil // ctx ended before this copy led
	case lctx = <-leading:
	}
	log.Info("Leading: running the agent", "lease", namespace+"/"+LeaseName, "identity", identity)
	err = fn(lctx)
	lost := lctx.Err() != nil && ctx.Err() == nil
	cancel()
	<-electionDone // released
	if lost {
		return errLostLease
	}
	return err
}
