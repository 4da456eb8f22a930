package agent

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"

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
	got := probeWorkloads(context.Background(), kube, refs)
	for i, w := range want {
		if got[i].Available != w.available || !strings.Contains(got[i].Message, w.message) {
			t.Errorf("%s: available %t (%q), want %t saying %q", refs[i], got[i].Available, got[i].Message, w.available, w.message)
		}
	}
}

// TestProbeHungAPIServer checks a round against an API server that never
// answers (a frozen kube-apiserver) ends after one ProbeTimeout, not one
// per probe, with every check failed and saying why.
func TestProbeHungAPIServer(t *testing.T) {
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer hung.Close()
	kube, err := kubernetes.NewForConfig(&rest.Config{Host: hung.URL})
	if err != nil {
		t.Fatal(err)
	}
	a := &Agent{opts: Options{Clock: clock.RealClock{}}, kube: kube}
	s := api.DefaultSettings()
	s.ProbeInterval.Duration = time.Second // the shortest timeout, MinProbeTimeout
	s.Workloads = []api.WorkloadRef{{Kind: api.KindDeployment, Namespace: "web", Name: "a"}, {Kind: api.KindDaemonSet, Namespace: "sys", Name: "b"}}

	start := time.Now()
	r := a.Probe(context.Background(), s)
	if took := time.Since(start); took > MinProbeTimeout+MinProbeTimeout/2 {
		t.Errorf("the round took %s, want about one timeout of %s", took, MinProbeTimeout)
	}
	for name, msg := range map[string]string{"livez": r.Livez.Message, "readyz": r.Readyz.Message, "nodes": r.Nodes.Error} {
		if !strings.Contains(msg, "deadline exceeded") {
			t.Errorf("%s says %q, want a timeout", name, msg)
		}
	}
	if r.Livez.OK || r.Readyz.OK || len(r.Workloads) != 2 || r.Workloads[0].Available || r.Workloads[1].Available {
		t.Errorf("report %+v, want every check failed", r)
	}
}
