package clusterprofile

import (
	"context"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	cpv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	healthapi "github.com/corral-dev/corral/health/api"
	"github.com/corral-dev/corral/internal/steps"
)

// ConditionJoined mirrors the cluster's Joined condition on its profile.
const ConditionJoined = "Joined"

// Properties are a cluster's claims, then its capacity and allocatable
// (capacity.<resource>, allocatable.<resource>), each once; a property
// whose value stays keeps its LastObservedTime from have, a new one is
// observed at now.
func Properties(cluster *clusterv1.ManagedCluster, have []cpv1alpha1.Property, now metav1.Time) []cpv1alpha1.Property {
	var props []cpv1alpha1.Property
	seen := map[string]bool{}
	add := func(name, value string) {
		if name == "" || value == "" || seen[name] || len(name) > 253 || len(value) > 1024 {
			return
		}
		seen[name] = true
		p := cpv1alpha1.Property{Name: name, Value: value, LastObservedTime: now}
		for _, h := range have {
			if h.Name == name && h.Value == value && !h.LastObservedTime.IsZero() {
				p.LastObservedTime = h.LastObservedTime
			}
		}
		props = append(props, p)
	}
	for _, c := range cluster.Status.ClusterClaims {
		add(c.Name, c.Value)
	}
	for _, l := range []struct {
		prefix string
		list   clusterv1.ResourceList
	}{{"capacity.", cluster.Status.Capacity}, {"allocatable.", cluster.Status.Allocatable}} {
		names := make([]string, 0, len(l.list))
		for name := range l.list {
			names = append(names, string(name))
		}
		sort.Strings(names)
		for _, name := range names {
			q := l.list[clusterv1.ResourceName(name)]
			add(l.prefix+name, q.String())
		}
	}
	return props
}

// ControlPlaneHealthy is the profile's ControlPlaneHealthy condition: the
// health addon's verdict when there is one, else the cluster's
// availability; nil when the cluster has neither yet.
func ControlPlaneHealthy(cluster *clusterv1.ManagedCluster) *metav1.Condition {
	from := meta.FindStatusCondition(cluster.Status.Conditions, healthapi.ConditionHealthy)
	if from == nil {
		from = meta.FindStatusCondition(cluster.Status.Conditions, clusterv1.ManagedClusterConditionAvailable)
	}
	if from == nil {
		return nil
	}
	return &metav1.Condition{Type: cpv1alpha1.ClusterConditionControlPlaneHealthy, Status: from.Status, Reason: from.Reason, Message: from.Message}
}

// updateStatus writes the profile's status from the cluster's.
func (r *Reconciler) updateStatus(ctx context.Context, s *scope) (steps.Result, error) {
	original := s.profile.DeepCopy()
	st := &s.profile.Status
	st.Version.Kubernetes = s.cluster.Status.Version.Kubernetes
	st.Properties = Properties(s.cluster, st.Properties, metav1.NewTime(r.Clock.Now()))
	if c := ControlPlaneHealthy(s.cluster); c != nil {
		meta.SetStatusCondition(&st.Conditions, *c)
	} else {
		meta.RemoveStatusCondition(&st.Conditions, cpv1alpha1.ClusterConditionControlPlaneHealthy)
	}
	if j := meta.FindStatusCondition(s.cluster.Status.Conditions, clusterv1.ManagedClusterConditionJoined); j != nil {
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: ConditionJoined, Status: j.Status, Reason: j.Reason, Message: j.Message})
	}
	if st.Conditions == nil {
		st.Conditions = []metav1.Condition{}
	}
	if equality.Semantic.DeepEqual(original.Status, s.profile.Status) {
		return steps.Continue, nil
	}
	ctrl.LoggerFrom(ctx).V(4).Info("Updating a ClusterProfile's status", "cluster", s.name, "properties", len(st.Properties))
	if err := r.Client.Status().Patch(ctx, s.profile, client.MergeFromWithOptions(original, client.MergeFromWithOptimisticLock{})); err != nil {
		return steps.StopList, fmt.Errorf("writing ClusterProfile %s/%s's status: %w", r.Namespace, s.name, err)
	}
	return steps.Continue, nil
}
