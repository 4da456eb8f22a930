package agent

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/registration/clientcsr"
	"github.com/corral-dev/corral/registration/common"
)

// Condition reasons the agent reports, as OCM's agent does.
const (
	ReasonJoined      = "ManagedClusterJoined"
	ReasonAvailable   = "ManagedClusterAvailable"
	ReasonUnavailable = "ManagedClusterKubeAPIServerUnavailable"
	// ReasonUnjoined is corral's: `corral unjoin` reports the stopped
	// agent gone (Available Unknown) as it takes the cluster off the hub.
	ReasonUnjoined = "ManagedClusterUnjoined"
)

// rotationTimeout bounds one attempt to rotate; a failed attempt is tried
// again the next period, with the current certificate still in use.
const rotationTimeout = time.Minute

// heartbeat renews the lease and reports status every lease period, and
// rotates the client certificate when it is due. A new identity the hub
// rejects at first (its RBAC is not there yet) is retried within seconds.
// When the hub rejects the identity RejectedBeats periods in a row (it
// was denied, or its certificate is no longer trusted), the agent falls
// back to the bootstrap kubeconfig and asks to join again.
func (a *Agent) heartbeat(ctx context.Context, s *session) error {
	period := common.LeasePeriod(a.opts.LeaseDurationSeconds)
	ticker := a.opts.Clock.NewTicker(period)
	defer func() { ticker.Stop() }()
	rejected := 0
	fresh := newFreshness(a.opts.Clock.Now(), period)
	for {
		hubPeriod, err := a.beat(ctx, s)
		var soon <-chan time.Time
		switch {
		case err == nil:
			rejected = 0
			fresh.beaten()
			if hubPeriod != period {
				log(ctx).V(1).Info("Renewing the lease as often as the hub's ManagedCluster says", "cluster", s.id.Cluster, "period", hubPeriod)
				period = hubPeriod
				ticker.Stop()
				ticker = a.opts.Clock.NewTicker(period)
			}
		case rejectedByHub(err) && fresh.graced(a.opts.Clock.Now()):
			retry := fresh.retry()
			log(ctx).V(1).Info("The hub does not let the new identity in yet; retrying shortly", "cluster", s.id.Cluster, "in", retry, "err", err)
			soon = a.opts.Clock.After(retry)
		case rejectedByHub(err):
			rejected++
			log(ctx).Info("The hub rejected the cluster's identity", "cluster", s.id.Cluster, "times", rejected, "err", err)
			if rejected >= RejectedBeats {
				next, err := a.fallBack(ctx, s, err)
				if err != nil {
					return err
				}
				s, rejected = next, 0
				fresh = newFreshness(a.opts.Clock.Now(), period)
				continue
			}
		default:
			log(ctx).Info("Heartbeat failed; retrying next period", "cluster", s.id.Cluster, "err", err)
		}
		if a.rotationDue(s.cert) {
			if next, err := a.rotate(ctx, s); err != nil {
				log(ctx).Info("Rotating the client certificate failed; retrying next period", "cluster", s.id.Cluster, "err", err)
			} else {
				s = next
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C():
		case <-soon:
		}
	}
}

// The first retries of a new identity the hub rejects: from
// freshRetryMin, doubling, never longer than a lease period.
const freshRetryMin = 500 * time.Millisecond

// freshness tells a new identity's rejections, which the hub's RBAC
// catching up ends within moments, from a real refusal: until its first
// heartbeat succeeds, and for one lease period at most, a rejection is
// retried within seconds and does not count towards RejectedBeats.
type freshness struct {
	ends  time.Time
	next  time.Duration
	limit time.Duration
	done  bool
}

func newFreshness(now time.Time, period time.Duration) *freshness {
	return &freshness{ends: now.Add(period), next: freshRetryMin, limit: period}
}

// beaten records a successful heartbeat: the identity is in.
func (f *freshness) beaten() { f.done = true }

// graced says a rejection at now is still the new identity's.
func (f *freshness) graced(now time.Time) bool { return !f.done && now.Before(f.ends) }

// retry is how soon to try again after a graced rejection.
func (f *freshness) retry() time.Duration {
	d := f.next
	f.next = min(2*f.next, f.limit)
	return d
}

// rotationDue reports whether clientcsr.RotateAt of the certificate's
// life is over.
func (a *Agent) rotationDue(c *certificate) bool {
	return !a.opts.Clock.Now().Before(clientcsr.RotationTime(c.NotBefore, c.NotAfter))
}

// rotate asks, as the current identity, for a certificate for a new key —
// the hub approves a renewal by a cluster's own identity — stores it and
// reports it. The old certificate stays in use until then.
func (a *Agent) rotate(ctx context.Context, s *session) (*session, error) {
	ctx, cancel := context.WithTimeout(ctx, rotationTimeout)
	defer cancel()
	next, err := a.obtain(ctx, s.kube, s.id, "Rotating the client certificate; waiting for the hub to approve the renewal")
	if err != nil {
		return nil, err
	}
	log(ctx).Info("Rotated the client certificate", "cluster", s.id.Cluster, "expires", next.cert.NotAfter)
	if err := a.report(ctx, next.clusters, s.id.Cluster, metav1.Condition{
		Type: common.ConditionCertificateRotated, Status: metav1.ConditionTrue, Reason: common.ReasonCertificateUpdated,
		Message: fmt.Sprintf("Client certificate rotated; it expires at %s", next.cert.NotAfter.UTC().Format(time.RFC3339)),
	}); err != nil {
		log(ctx).Info("Reporting the rotation failed", "cluster", s.id.Cluster, "err", err)
	}
	return next, nil
}

// report sets conditions on the cluster's status.
func (a *Agent) report(ctx context.Context, clusters clusterclient.Interface, name string, conds ...metav1.Condition) error {
	mc, err := clusters.ClusterV1().ManagedClusters().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	return setConditions(ctx, clusters, mc, conds...)
}

// setConditions writes conds into mc's status, if they change it. The hub
// writes the status too (its own conditions, such as ClockSynced after
// the renewal just made): on a conflict it reads the cluster again and
// retries at once, rather than a lease period later.
func setConditions(ctx context.Context, clusters clusterclient.Interface, mc *clusterv1.ManagedCluster, conds ...metav1.Condition) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		changed := false
		for _, c := range conds {
			changed = meta.SetStatusCondition(&mc.Status.Conditions, c) || changed
		}
		if !changed {
			return nil
		}
		_, err := clusters.ClusterV1().ManagedClusters().UpdateStatus(ctx, mc, metav1.UpdateOptions{})
		if apierrors.IsConflict(err) {
			latest, getErr := clusters.ClusterV1().ManagedClusters().Get(ctx, mc.Name, metav1.GetOptions{})
			if getErr != nil {
				return getErr
			}
			mc = latest
		}
		return err
	})
}

// beat renews the lease and reports Joined and Available, once the hub has
// accepted the cluster (before that, neither is the agent's to write). It
// returns the lease period the hub asks for: the ManagedCluster's
// spec.leaseDurationSeconds, which the hub judges the lease by and an
// admin may change, not the one the agent created it with.
func (a *Agent) beat(ctx context.Context, s *session) (time.Duration, error) {
	id := s.id
	mc, err := s.clusters.ClusterV1().ManagedClusters().Get(ctx, id.Cluster, metav1.GetOptions{})
	if err != nil {
		return 0, fmt.Errorf("reading ManagedCluster %s: %w", id.Cluster, err)
	}
	period := common.LeasePeriod(mc.Spec.LeaseDurationSeconds)
	if !meta.IsStatusConditionTrue(mc.Status.Conditions, clusterv1.ManagedClusterConditionHubAccepted) {
		log(ctx).V(1).Info("Not accepted (yet); not heartbeating", "cluster", id.Cluster)
		return period, nil
	}
	a.noteClock(ctx, mc)
	now := a.opts.Clock.Now()
	if err := a.renewLease(ctx, s.kube, id.Cluster, now); err != nil {
		return 0, err
	}
	if mc, err = a.declareClientConfigs(ctx, s.clusters, mc); err != nil {
		return 0, err
	}
	available := metav1.Condition{Type: clusterv1.ManagedClusterConditionAvailable, Status: metav1.ConditionTrue,
		Reason: ReasonAvailable, Message: "The managed cluster's kube-apiserver is live."}
	if err := a.managedLive(ctx); err != nil {
		available.Status, available.Reason = metav1.ConditionFalse, ReasonUnavailable
		available.Message = fmt.Sprintf("The managed cluster's kube-apiserver is not live: %v", err)
	}
	joined := metav1.Condition{Type: clusterv1.ManagedClusterConditionJoined, Status: metav1.ConditionTrue,
		Reason: ReasonJoined, Message: "Managed cluster joined"}
	if err := setConditions(ctx, s.clusters, mc, joined, available); err != nil {
		return 0, fmt.Errorf("reporting status: %w", err)
	}
	return period, nil
}

// noteClock says in the agent's log, once each time it changes, what the
// hub's ClockSynced condition says of this cluster's clock. The hub judges
// the lease by the renewal times this clock stamps, so a clock out of
// sync can make a live cluster look unreachable there, or a dead one
// look available; the agent's own log is where this cluster's admin
// looks.
func (a *Agent) noteClock(ctx context.Context, mc *clusterv1.ManagedCluster) {
	c := meta.FindStatusCondition(mc.Status.Conditions, clusterv1.ManagedClusterConditionClockSynced)
	out := c != nil && c.Status == metav1.ConditionFalse
	if out == a.clockOutOfSync {
		return
	}
	a.clockOutOfSync = out
	if out {
		log(ctx).Info("The hub says this cluster's clock is out of sync with its own; it judges the lease by this clock, so set it right (NTP)",
			"cluster", mc.Name, "hub", c.Message)
		return
	}
	log(ctx).Info("The hub says this cluster's clock is in sync again", "cluster", mc.Name)
}

// declareClientConfigs keeps the ManagedCluster's
// spec.managedClusterClientConfigs as the agent was started with
// (--cluster-url), as OCM's agent does: an address that changed after the
// join reaches the hub too. Without any, the hub's are left alone.
func (a *Agent) declareClientConfigs(ctx context.Context, clusters clusterclient.Interface, mc *clusterv1.ManagedCluster) (*clusterv1.ManagedCluster, error) {
	if len(a.opts.ClientConfigs) == 0 || equality.Semantic.DeepEqual(mc.Spec.ManagedClusterClientConfigs, a.opts.ClientConfigs) {
		return mc, nil
	}
	mc = mc.DeepCopy()
	mc.Spec.ManagedClusterClientConfigs = a.opts.ClientConfigs
	updated, err := clusters.ClusterV1().ManagedClusters().Update(ctx, mc, metav1.UpdateOptions{})
	if err != nil {
		return nil, fmt.Errorf("declaring the cluster's API server address: %w", err)
	}
	return updated, nil
}

func (a *Agent) renewLease(ctx context.Context, kube kubernetes.Interface, ns string, now time.Time) error {
	lease, err := kube.CoordinationV1().Leases(ns).Get(ctx, common.LeaseName, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("reading the lease: %w", err)
	}
	lease.Spec.RenewTime = &metav1.MicroTime{Time: now}
	if _, err := kube.CoordinationV1().Leases(ns).Update(ctx, lease, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("renewing the lease: %w", err)
	}
	return nil
}

// managedLive asks the managed cluster's API server for /livez.
func (a *Agent) managedLive(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err := a.managed.Discovery().RESTClient().Get().AbsPath("/livez").DoRaw(ctx)
	return err
}
