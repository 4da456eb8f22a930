package agent

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/registration/common"
)

// Condition reasons the agent reports, as OCM's agent does.
const (
	ReasonJoined      = "ManagedClusterJoined"
	ReasonAvailable   = "ManagedClusterAvailable"
	ReasonUnavailable = "ManagedClusterKubeAPIServerUnavailable"
)

// heartbeat renews the lease and reports status every lease period.
func (a *Agent) heartbeat(ctx context.Context, hub *rest.Config, id Identity) error {
	clusters, err := clusterclient.NewForConfig(hub)
	if err != nil {
		return err
	}
	kube, err := kubernetes.NewForConfig(hub)
	if err != nil {
		return err
	}
	ticker := a.opts.Clock.NewTicker(time.Duration(a.opts.LeaseDurationSeconds) * time.Second)
	defer ticker.Stop()
	for {
		if err := a.beat(ctx, clusters, kube, id); err != nil {
			log(ctx).Info("Heartbeat failed; retrying next period", "cluster", id.Cluster, "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C():
		}
	}
}

// beat renews the lease and reports Joined and Available, once the hub has
// accepted the cluster (before that, neither is the agent's to write).
func (a *Agent) beat(ctx context.Context, clusters clusterclient.Interface, kube kubernetes.Interface, id Identity) error {
	mc, err := clusters.ClusterV1().ManagedClusters().Get(ctx, id.Cluster, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("reading ManagedCluster %s: %w", id.Cluster, err)
	}
	if !meta.IsStatusConditionTrue(mc.Status.Conditions, clusterv1.ManagedClusterConditionHubAccepted) {
		log(ctx).V(1).Info("Not accepted (yet); not heartbeating", "cluster", id.Cluster)
		return nil
	}
	now := a.opts.Clock.Now()
	if err := a.renewLease(ctx, kube, id.Cluster, now); err != nil {
		return err
	}
	available := metav1.Condition{Type: clusterv1.ManagedClusterConditionAvailable, Status: metav1.ConditionTrue,
		Reason: ReasonAvailable, Message: "The managed cluster's kube-apiserver is live."}
	if err := a.managedLive(ctx); err != nil {
		available.Status, available.Reason = metav1.ConditionFalse, ReasonUnavailable
		available.Message = fmt.Sprintf("The managed cluster's kube-apiserver is not live: %v", err)
	}
	joined := metav1.Condition{Type: clusterv1.ManagedClusterConditionJoined, Status: metav1.ConditionTrue,
		Reason: ReasonJoined, Message: "Managed cluster joined"}
	changed := meta.SetStatusCondition(&mc.Status.Conditions, joined)
	changed = meta.SetStatusCondition(&mc.Status.Conditions, available) || changed
	if !changed {
		return nil
	}
	if _, err := clusters.ClusterV1().ManagedClusters().UpdateStatus(ctx, mc, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("reporting status: %w", err)
	}
	return nil
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
