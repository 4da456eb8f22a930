package agent

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/corral-dev/corral/properties/api"
)

func node(name, region, zone, providerID string, res corev1.ResourceList) corev1.Node {
	labels := map[string]string{}
	if region != "" {
		labels[corev1.LabelTopologyRegion] = region
	}
	if zone != "" {
		labels[corev1.LabelTopologyZone] = zone
	}
	return corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:       corev1.NodeSpec{ProviderID: providerID},
		Status:     corev1.NodeStatus{Capacity: res, Allocatable: res},
	}
}

func TestCollect(t *testing.T) {
	gpu := corev1.ResourceName("nvidia.com/gpu")
	nodes := []corev1.Node{
		node("a", "eu-west", "eu-west-1a", "aws:///eu-west-1a/i-1", corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi"), gpu: resource.MustParse("1")}),
		node("b", "eu-west", "eu-west-1b", "aws:///eu-west-1b/i-2", corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4500m"), corev1.ResourceMemory: resource.MustParse("8Gi")}),
		node("c", "us-east", "", "", corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}),
	}
	got := Collect("v1.35.4-eks-abc", nodes)
	if got.Nodes != 3 || got.Region != "eu-west" || got.Platform != "AWS" || got.Product != "EKS" {
		t.Errorf("Collect = %+v", got)
	}
	if diff := cmp.Diff([]string{"eu-west-1a", "eu-west-1b"}, got.Zones); diff != "" {
		t.Errorf("zones (-want +got):\n%s", diff)
	}
	for name, want := range map[corev1.ResourceName]string{corev1.ResourceCPU: "9500m", corev1.ResourceMemory: "16Gi", gpu: "1"} {
		q := got.Allocatable[name]
		if q.Cmp(resource.MustParse(want)) != 0 {
			t.Errorf("allocatable %s = %s, want %s", name, q.String(), want)
		}
	}
	claims := map[string]string{}
	for _, c := range got.Claims() {
		claims[c.Name] = c.Value
	}
	want := map[string]string{api.ClaimKubeVersion: "v1.35.4-eks-abc", api.ClaimPlatform: "AWS", api.ClaimProduct: "EKS",
		api.ClaimRegion: "eu-west", api.ClaimZones: "eu-west-1a,eu-west-1b", api.ClaimNodes: "3"}
	if diff := cmp.Diff(want, claims); diff != "" {
		t.Errorf("claims (-want +got):\n%s", diff)
	}
}

func TestCollectNoNodes(t *testing.T) {
	got := Collect("v1.35.4", nil)
	if got.Platform != "Other" || got.Product != "Kubernetes" || got.Region != "" || got.Nodes != 0 {
		t.Errorf("Collect with no nodes = %+v", got)
	}
	for _, c := range got.Claims() {
		if c.Name == api.ClaimRegion || c.Name == api.ClaimZones {
			t.Errorf("claim %s made with no value", c.Name)
		}
	}
}
