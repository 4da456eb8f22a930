// Package common holds what both halves of the registration core must agree
// on and neither may import from the other, the few pieces the hub's
// controllers and its admission webhooks share (access reviews), and which
// clusters a ManagedClusterSet holds (membership.go), which placement and
// the CLI ask too.
package common

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
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
	return meta.IsStatusConditionTrue(mc.Status.Conditions, clusterv1.ManagedClusterConditionHubAccepted) && Heartbeating(mc)
}

// Heartbeating reports whether mc's agent joined and still heartbeats,
// accepted now or not: Joined, and Available True or False (the hub makes
// it Unknown when the lease runs out).
func Heartbeating(mc *clusterv1.ManagedCluster) bool {
	if !meta.IsStatusConditionTrue(mc.Status.Conditions, clusterv1.ManagedClusterConditionJoined) {
		return false
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

// reservedNames are names a cluster may not have, by what it would take:
// its RBAC would be the shared RBAC of every cluster, its identity's group
// every agent's group, or its namespace one of the hub's own.
var reservedNames = map[string]string{
	"managed-clusters": "every agent's certificate carries the group system:open-cluster-management:managed-clusters",
	"registration":     "its ClusterRole would be open-cluster-management:managedcluster:registration, which every cluster shares",
	"work":             "its ClusterRole would be open-cluster-management:managedcluster:work, which every cluster shares",
	"default":          "its namespace would be the hub's namespace default",
}

// reservedPrefixes are the beginnings of the hub's own namespaces.
var reservedPrefixes = []string{"kube-", "open-cluster-management", "openshift-"}

// ReservedClusterName says why name may not name a managed cluster, or ""
// when it may: a cluster's name names its namespace, its RBAC and its
// identity's group on the hub, none of which may be another's.
func ReservedClusterName(name string) string {
	if why, ok := reservedNames[name]; ok {
		return fmt.Sprintf("cluster name %q is reserved: %s; choose another name", name, why)
	}
	for _, p := range reservedPrefixes {
		if strings.HasPrefix(name, p) {
			return fmt.Sprintf("cluster name %q is reserved: names beginning with %q are the hub's own namespaces; choose another name", name, p)
		}
	}
	return ""
}

// ValidateClusterName says, in one line, why name cannot name a cluster:
// not a DNS-1123 label (it names the cluster namespace), or reserved.
func ValidateClusterName(name string) error {
	if msgs := validation.IsDNS1123Label(name); len(msgs) > 0 {
		return fmt.Errorf("%q is not a cluster name: %s", name, msgs[0])
	}
	if why := ReservedClusterName(name); why != "" {
		return errors.New(why)
	}
	return nil
}

// ClusterNames are the cluster names a verb was given, each checked
// (ValidateClusterName) and once, in their first order: a name given
// twice is acted on once.
func ClusterNames(names []string) ([]string, error) {
	out := make([]string, 0, len(names))
	for _, name := range names {
		if err := ValidateClusterName(name); err != nil {
			return nil, err
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out, nil
}

// ValidateClusterSetName says, in one line, why name cannot name a
// cluster set: a set's name is a resource name and, on its clusters, the
// value of the cluster set label.
func ValidateClusterSetName(name string) error {
	if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
		return fmt.Errorf("%q is not a cluster set name: %s", name, msgs[0])
	}
	if msgs := validation.IsValidLabelValue(name); len(msgs) > 0 {
		return fmt.Errorf("%q is not a cluster set name: %s", name, msgs[0])
	}
	return nil
}
