package agent

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/corral-dev/corral/health/api"
)

func TestProbeWorkloads(t *testing.T) {
	kube := fake.NewClientset(
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "web", Name: "up"}, Status: appsv1.DeploymentStatus{
			Replicas: 2, AvailableReplicas: 2, Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue}},
		}},
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "web", Name: "down"}, Status: appsv1.DeploymentStatus{
			Replicas: 2, Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionFalse, Message: "no pods"}},
		}},
		&appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "sys", Name: "full"}, Status: appsv1.DaemonSetStatus{DesiredNumberScheduled: 3, NumberAvailable: 3}},
		&appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "sys", Name: "partial"}, Status: appsv1.DaemonSetStatus{DesiredNumberScheduled: 3, NumberAvailable: 2, NumberUnavailable: 1}},
	)
	refs := []api.WorkloadRef{
		{Kind: api.KindDeployment, Namespace: "web", Name: "up"},
		{Kind: api.KindDeployment, Namespace: "web", Name: "down"},
		{Kind: api.KindDeployment, Namespace: "web", Name: "missing"},
		{Kind: api.KindDaemonSet, Namespace: "sys", Name: "full"},
		{Kind: api.KindDaemonSet, Namespace: "sys", Name: "partial"},
	}
	want := []struct {
		available bool
		message   string
	}{{true, "2/2 replicas available"}, {false, "no pods"}, {false, "not found"}, {true, "3/3 pods available"}, {false, "2/3 pods available"}}
	got := probeWorkloads(context.Background(), kube, refs, MinProbeTimeout)
	for i, w := range want {
		if got[i].Available != w.available || !strings.Contains(got[i].Message, w.message) {
			t.Errorf("%s: available %t (%q), want %t saying %q", refs[i], got[i].Available, got[i].Message, w.available, w.message)
		}
	}
}
