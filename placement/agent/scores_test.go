package agent

import (
	"testing"

	placementapi "github.com/corral-dev/corral/placement/api"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
)

func TestScale(t *testing.T) {
	cases := map[string]struct {
		amount, full int64
		want         int32
	}{
		"nothing free is the minimum":          {amount: 0, full: 100, want: -100},
		"less than nothing is the minimum too": {amount: -5, full: 100, want: -100},
		"half is the middle":                   {amount: 50, full: 100, want: 0},
		"a quarter":                            {amount: 25, full: 100, want: -50},
		"three quarters":                       {amount: 75, full: 100, want: 50},
		"all is the maximum":                   {amount: 100, full: 100, want: 100},
		"more than all is the maximum":         {amount: 1000, full: 100, want: 100},
		"rounds to the nearest":                {amount: 1, full: 400, want: -100}, // -99.5 rounds away from zero
		"rounds up":                            {amount: 3, full: 400, want: -99},  // -98.5
		"a tiny amount is above the minimum":   {amount: 1, full: 100, want: -98},
		"no full amount: anything is plenty":   {amount: 0, full: 0, want: 100},
		"1 core of 100":                        {amount: 1000, full: CPUForMaxScore.MilliValue(), want: -98},
		"512Gi of 1Ti":                         {amount: 512 << 30, full: MemoryForMaxScore.Value(), want: 0},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Scale(tc.amount, tc.full)
			if got != tc.want {
				t.Errorf("Scale(%d, %d) = %d, want %d", tc.amount, tc.full, got, tc.want)
			}
			if got < -100 || got > 100 {
				t.Errorf("Scale(%d, %d) = %d is outside -100…100", tc.amount, tc.full, got)
			}
		})
	}
}

func node(name, cpu, mem string, unschedulable bool) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.NodeSpec{Unschedulable: unschedulable},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem),
		}},
	}
}

func requests(cpu, mem string) corev1.ResourceRequirements {
	return corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem),
	}}
}

func pod(nodeName string, phase corev1.PodPhase, containers ...corev1.ResourceRequirements) *corev1.Pod {
	p := &corev1.Pod{Spec: corev1.PodSpec{NodeName: nodeName}, Status: corev1.PodStatus{Phase: phase}}
	for _, r := range containers {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Resources: r})
	}
	return p
}

func TestCompute(t *testing.T) {
	withInit := pod("n1", corev1.PodRunning, requests("1", "1Gi"))
	withInit.Spec.InitContainers = []corev1.Container{{Resources: requests("3", "1Gi")}}
	withOverhead := pod("n1", corev1.PodRunning, requests("1", "1Gi"))
	withOverhead.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}
	cases := map[string]struct {
		nodes []*corev1.Node
		pods  []*corev1.Pod
		want  Available
	}{
		"no nodes": {want: Available{}},
		"nodes without pods: all their allocatable": {
			nodes: []*corev1.Node{node("n1", "4", "8Gi", false), node("n2", "2", "4Gi", false)},
			want:  Available{MilliCPU: 6000, MemoryBytes: 12 << 30},
		},
		"running and pending bound pods count; unbound and finished ones do not": {
			nodes: []*corev1.Node{node("n1", "4", "8Gi", false)},
			pods: []*corev1.Pod{
				pod("n1", corev1.PodRunning, requests("1", "1Gi"), requests("500m", "1Gi")),
				pod("n1", corev1.PodPending, requests("1", "1Gi")),
				pod("", corev1.PodPending, requests("1", "1Gi")),
				pod("n1", corev1.PodSucceeded, requests("1", "1Gi")),
				pod("n1", corev1.PodFailed, requests("1", "1Gi")),
			},
			want: Available{MilliCPU: 1500, MemoryBytes: 5 << 30},
		},
		"an unschedulable node and its pods do not count": {
			nodes: []*corev1.Node{node("n1", "4", "8Gi", false), node("n2", "8", "8Gi", true)},
			pods:  []*corev1.Pod{pod("n2", corev1.PodRunning, requests("1", "1Gi"))},
			want:  Available{MilliCPU: 4000, MemoryBytes: 8 << 30},
		},
		"an overcommitted node counts as full, not as less than full": {
			nodes: []*corev1.Node{node("n1", "1", "1Gi", false), node("n2", "2", "2Gi", false)},
			pods:  []*corev1.Pod{pod("n1", corev1.PodRunning, requests("3", "3Gi"))},
			want:  Available{MilliCPU: 2000, MemoryBytes: 2 << 30},
		},
		"an init container asking more than the containers sets the pod's request, as the scheduler counts it": {
			nodes: []*corev1.Node{node("n1", "4", "8Gi", false)},
			pods:  []*corev1.Pod{withInit},
			want:  Available{MilliCPU: 1000, MemoryBytes: 7 << 30},
		},
		"pod overhead counts": {
			nodes: []*corev1.Node{node("n1", "4", "8Gi", false)},
			pods:  []*corev1.Pod{withOverhead},
			want:  Available{MilliCPU: 2500, MemoryBytes: 7 << 30},
		},
		"a pod bound to a node that is gone counts nowhere": {
			nodes: []*corev1.Node{node("n1", "4", "8Gi", false)},
			pods:  []*corev1.Pod{pod("gone", corev1.PodRunning, requests("1", "1Gi"))},
			want:  Available{MilliCPU: 4000, MemoryBytes: 8 << 30},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Compute(tc.nodes, tc.pods)); diff != "" {
				t.Errorf("Compute (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScores(t *testing.T) {
	got := Scores(Available{MilliCPU: 50_000, MemoryBytes: 1 << 40})
	want := []clusterv1alpha1.AddOnPlacementScoreItem{{Name: placementapi.ScoreCPU, Value: 0}, {Name: placementapi.ScoreMemory, Value: 100}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Scores (-want +got):\n%s", diff)
	}
}
