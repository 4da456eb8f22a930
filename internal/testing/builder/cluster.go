package builder

import (
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
)

// ClusterBuilder builds a ManagedCluster.
type ClusterBuilder struct{ mc clusterv1.ManagedCluster }

// Cluster is a ManagedCluster named name, with nothing else set.
func Cluster(name string) *ClusterBuilder {
	return &ClusterBuilder{mc: clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: name}}}
}

// Label sets the label k to v.
func (b *ClusterBuilder) Label(k, v string) *ClusterBuilder {
	setKey(&b.mc.Labels, k, v)
	return b
}

// InSet labels the cluster as a member of the cluster set set.
func (b *ClusterBuilder) InSet(set string) *ClusterBuilder {
	return b.Label(clusterv1beta2.ClusterSetLabel, set)
}

// Generation sets metadata.generation, as the API server counts changes
// of the spec.
func (b *ClusterBuilder) Generation(g int64) *ClusterBuilder {
	b.mc.Generation = g
	return b
}

// Finalizer adds the finalizer f.
func (b *ClusterBuilder) Finalizer(f string) *ClusterBuilder {
	b.mc.Finalizers = append(b.mc.Finalizers, f)
	return b
}

// Deleting marks the cluster deleted at at. A fake client wants a
// finalizer on an object being deleted.
func (b *ClusterBuilder) Deleting(at time.Time) *ClusterBuilder {
	b.mc.DeletionTimestamp = &metav1.Time{Time: at}
	return b
}

// Accepted sets spec.hubAcceptsClient, as an admin accepting the cluster
// does. The hub's HubAccepted condition is the hub's to report: see
// Condition.
func (b *ClusterBuilder) Accepted() *ClusterBuilder {
	b.mc.Spec.HubAcceptsClient = true
	return b
}

// LeaseDurationSeconds sets how often the cluster's agent says it renews
// its lease.
func (b *ClusterBuilder) LeaseDurationSeconds(s int32) *ClusterBuilder {
	b.mc.Spec.LeaseDurationSeconds = s
	return b
}

// ClientConfig adds the API server URL url to the cluster's client
// configs.
func (b *ClusterBuilder) ClientConfig(url string) *ClusterBuilder {
	b.mc.Spec.ManagedClusterClientConfigs = append(b.mc.Spec.ManagedClusterClientConfigs, clusterv1.ClientConfig{URL: url})
	return b
}

// Taint adds a taint added at added (the zero time for none).
func (b *ClusterBuilder) Taint(key, value string, effect clusterv1.TaintEffect, added time.Time) *ClusterBuilder {
	b.mc.Spec.Taints = append(b.mc.Spec.Taints, clusterv1.Taint{Key: key, Value: value, Effect: effect, TimeAdded: metav1.NewTime(added)})
	return b
}

// Condition sets each status condition of cs in place of the one of its
// type, as given.
func (b *ClusterBuilder) Condition(cs ...metav1.Condition) *ClusterBuilder {
	for _, c := range cs {
		setCondition(&b.mc.Status.Conditions, c)
	}
	return b
}

// Claim adds the cluster claim name=value to the status.
func (b *ClusterBuilder) Claim(name, value string) *ClusterBuilder {
	b.mc.Status.ClusterClaims = append(b.mc.Status.ClusterClaims, clusterv1.ManagedClusterClaim{Name: name, Value: value})
	return b
}

// CPU reports the cluster's allocatable CPU and its capacity, as
// resource.MustParse reads them; "" reports none.
func (b *ClusterBuilder) CPU(allocatable, capacity string) *ClusterBuilder {
	if allocatable != "" {
		b.mc.Status.Allocatable = withCPU(b.mc.Status.Allocatable, allocatable)
	}
	if capacity != "" {
		b.mc.Status.Capacity = withCPU(b.mc.Status.Capacity, capacity)
	}
	return b
}

func withCPU(l clusterv1.ResourceList, quantity string) clusterv1.ResourceList {
	if l == nil {
		l = clusterv1.ResourceList{}
	}
	l[clusterv1.ResourceCPU] = resource.MustParse(quantity)
	return l
}

// KubernetesVersion reports the cluster's Kubernetes version.
func (b *ClusterBuilder) KubernetesVersion(v string) *ClusterBuilder {
	b.mc.Status.Version.Kubernetes = v
	return b
}

// Obj is a copy of the ManagedCluster built so far.
func (b *ClusterBuilder) Obj() *clusterv1.ManagedCluster { return b.mc.DeepCopy() }
