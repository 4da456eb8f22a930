// Package common holds what both halves of the registration core must agree
// on and neither may import from the other, and the few pieces the hub's
// controllers and its admission webhooks share (access reviews).
package common

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
)

// LeaseName is the lease a cluster's agent renews in its cluster namespace
// on the hub, and the hub watches.
const LeaseName = "managed-cluster-lease"

// DefaultLeaseDurationSeconds is how often an agent renews its lease when
// its ManagedCluster does not say (spec.leaseDurationSeconds), as OCM has it.
const DefaultLeaseDurationSeconds = 60

// LeasePeriod is the lease period of a ManagedCluster whose
// spec.leaseDurationSeconds is seconds: how often its agent renews the
// lease, and what the hub judges the lease by.
func LeasePeriod(seconds int32) time.Duration {
	if seconds <= 0 {
		seconds = DefaultLeaseDurationSeconds
	}
	return time.Duration(seconds) * time.Second
}

// Held reports whether a live agent holds mc: the cluster is accepted and
// joined, and its agent is heartbeating, whether or not it finds its own
// API server live (Available True or False; the hub makes it Unknown when
// the lease runs out). Neither a second agent's join nor its approval may
// take such a cluster's name.
func Held(mc *clusterv1.ManagedCluster) bool {
	for _, t := range []string{clusterv1.ManagedClusterConditionHubAccepted, clusterv1.ManagedClusterConditionJoined} {
		if !meta.IsStatusConditionTrue(mc.Status.Conditions, t) {
			return false
		}
	}
	available := ConditionStatus(mc, clusterv1.ManagedClusterConditionAvailable)
	return available == metav1.ConditionTrue || available == metav1.ConditionFalse
}

// ConditionStatus is the status of mc's condition condType, "" when it has
// none: what the hub controllers' predicates compare between an update's
// old and new cluster.
func ConditionStatus(mc *clusterv1.ManagedCluster, condType string) metav1.ConditionStatus {
	if c := meta.FindStatusCondition(mc.Status.Conditions, condType); c != nil {
		return c.Status
	}
	return ""
}

// The condition and reasons OCM's agents report a client certificate's
// rotation with, on the ManagedCluster (the registration agent's) and on
// a ManagedClusterAddOn (an addon's).
const (
	ConditionCertificateRotated   = "ClusterCertificateRotated"
	ReasonCertificateUpdated      = "ClientCertificateUpdated"
	ReasonCertificateUpdateFailed = "ClientCertificateUpdateFailed"
)
