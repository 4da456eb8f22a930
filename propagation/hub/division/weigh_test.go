package division

import (
	"testing"

	placementapi "github.com/corral-dev/corral/placement/api"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/corral-dev/corral/internal/clusterselector"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// scoreMap is Scores from a map of cluster → cpuAvailable.
type scoreMap map[string]int32

func (m scoreMap) Score(namespace, name string) *clusterv1alpha1.AddOnPlacementScore {
	v, ok := m[namespace]
	if !ok || name != placementapi.ScoreName {
		return nil
	}
	return &clusterv1alpha1.AddOnPlacementScore{Status: clusterv1alpha1.AddOnPlacementScoreStatus{
		Scores: []clusterv1alpha1.AddOnPlacementScoreItem{{Name: placementapi.ScoreCPU, Value: v}}}}
}

func cluster(name, region, cpu string) *clusterv1.ManagedCluster {
	return &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"region": region}},
		Status: clusterv1.ManagedClusterStatus{Allocatable: clusterv1.ResourceList{clusterv1.ResourceCPU: resource.MustParse(cpu),
			clusterv1.ResourceMemory: resource.MustParse("2Gi")}}}
}

func TestWeigh(t *testing.T) {
	clusters := []*clusterv1.ManagedCluster{cluster("a", "eu", "4"), cluster("b", "us", "2"), cluster("c", "ap", "500m")}
	byRegion := func(region string, w int32) v1alpha1.ClusterWeight {
		return v1alpha1.ClusterWeight{Weight: w, ClusterSelector: clusterv1beta1.ClusterSelector{
			LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"region": region}}}}
	}
	for name, tc := range map[string]struct {
		policy v1alpha1.ReplicaScheduling
		scores scoreMap
		want   map[string]int64
	}{
		"equal: all 0": {policy: v1alpha1.ReplicaScheduling{Type: v1alpha1.ReplicaSchedulingDivided}, want: map[string]int64{"a": 0, "b": 0, "c": 0}},
		"static, the first match wins, none is 0": {
			policy: v1alpha1.ReplicaScheduling{Weights: []v1alpha1.ClusterWeight{byRegion("eu", 2), byRegion("us", 1), {Weight: 7}, byRegion("ap", 9)}},
			want:   map[string]int64{"a": 2, "b": 1, "c": 7}},
		"static, unmatched is 0": {policy: v1alpha1.ReplicaScheduling{Weights: []v1alpha1.ClusterWeight{byRegion("eu", 2)}},
			want: map[string]int64{"a": 2, "b": 0, "c": 0}},
		"dynamic from scores, in proportion to what is free": {policy: v1alpha1.ReplicaScheduling{Dynamic: &v1alpha1.DynamicWeight{Resource: "cpu"}},
			scores: scoreMap{"a": 100, "b": 0, "c": -100}, want: map[string]int64{"a": 200, "b": 100, "c": 0}},
		"dynamic, a cluster without a score: allocatable for all": {policy: v1alpha1.ReplicaScheduling{Dynamic: &v1alpha1.DynamicWeight{Resource: "cpu"}},
			scores: scoreMap{"a": 100, "b": 0}, want: map[string]int64{"a": 4000, "b": 2000, "c": 500}},
		"dynamic memory, allocatable in MiB": {policy: v1alpha1.ReplicaScheduling{Dynamic: &v1alpha1.DynamicWeight{Resource: "memory"}},
			want: map[string]int64{"a": 2048, "b": 2048, "c": 2048}},
	} {
		t.Run(name, func(t *testing.T) {
			w, err := NewWeigher(&tc.policy, clusterselector.NewCompiler(nil))
			if err != nil {
				t.Fatal(err)
			}
			got := w.Weigh(clusters, tc.scores)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("weights (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReplicaPaths(t *testing.T) {
	custom := []v1alpha1.ReplicaPath{{Group: "example.com", Kind: "Widget", Path: "/spec/size/count"}, {Group: "apps", Kind: "Deployment", Path: "/spec/x"}}
	for gk, want := range map[schema.GroupKind]string{
		{Group: "apps", Kind: "StatefulSet"}:   "/spec/replicas",
		{Group: "batch", Kind: "Job"}:          "/spec/parallelism",
		{Group: "apps", Kind: "Deployment"}:    "/spec/x",
		{Group: "example.com", Kind: "Widget"}: "/spec/size/count",
		{Group: "apps", Kind: "DaemonSet"}:     "",
	} {
		if got := PathOf(gk, custom); got != want {
			t.Errorf("PathOf(%s) = %q, want %q", gk, got, want)
		}
	}

	obj := map[string]any{"spec": map[string]any{"replicas": float64(6), "list": []any{}, "a~b/c": int64(2)}}
	for path, want := range map[string]struct {
		n  int32
		ok bool
	}{"/spec/replicas": {6, true}, "/spec/a~0b~1c": {2, true}, "/spec/none": {0, false}, "/spec/list": {0, false}, "/spec/list/0": {0, false}} {
		if n, ok := Replicas(obj, path); n != want.n || ok != want.ok {
			t.Errorf("Replicas(%s) = %d, %v, want %d, %v", path, n, ok, want.n, want.ok)
		}
	}
	if err := SetReplicas(obj, "/spec/size/count", 3); err != nil {
		t.Fatal(err)
	}
	if n, ok := Replicas(obj, "/spec/size/count"); n != 3 || !ok {
		t.Errorf("after SetReplicas: %d, %v, want 3", n, ok)
	}
	if err := SetReplicas(obj, "/spec/list/0", 3); err == nil {
		t.Error("SetReplicas through a list: no error, want one")
	}
}
