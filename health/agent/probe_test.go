package agent

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
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

// TestProbeRunsEveryProbeAtOnce checks a round against an API server
// that never answers (a frozen kube-apiserver) has its probes all waiting
// at the same time, so that it costs one timeout rather than one per
// probe, and reports every check failed, saying why.
func TestProbeRunsEveryProbeAtOnce(t *testing.T) {
	const probes = 4 // livez, readyz, nodes and the first workload
	var inFlight atomic.Int32
	allWaiting := make(chan struct{})
	var once sync.Once
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if inFlight.Add(1) == probes {
			once.Do(func() { close(allWaiting) })
		}
		<-r.Context().Done()
		inFlight.Add(-1)
	}))
	defer hung.Close()
	kube, err := kubernetes.NewForConfig(&rest.Config{Host: hung.URL})
	if err != nil {
		t.Fatal(err)
	}
	a := &Agent{opts: Options{Clock: clock.RealClock{}}, kube: kube}
	s := api.DefaultSettings()
	s.ProbeInterval.Duration = time.Second // the shortest timeout, MinProbeTimeout
	s.Workloads = []api.WorkloadRef{{Kind: api.KindDeployment, Namespace: "web", Name: "a"}, {Kind: api.KindDaemonSet, Namespace: "sys", Name: "b"}}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan api.Report, 1)
	go func() { done <- a.Probe(ctx, s) }()
	select {
	case <-allWaiting:
		cancel() // as the round's timeout would
	case r := <-done:
		t.Fatalf("the round ended before its %d probes were all waiting at once: %+v", probes, r)
	}
	r := <-done
	for name, msg := range map[string]string{"livez": r.Livez.Message, "readyz": r.Readyz.Message, "nodes": r.Nodes.Error} {
		if !strings.Contains(msg, "context canceled") {
			t.Errorf("%s says %q, want the round's end", name, msg)
		}
	}
	if r.Livez.OK || r.Readyz.OK || len(r.Workloads) != 2 || r.Workloads[0].Available || r.Workloads[1].Available {
		t.Errorf("report %+v, want every check failed", r)
	}
}

func TestProbeTimeout(t *testing.T) {
	for interval, want := range map[time.Duration]time.Duration{
		time.Second:      MinProbeTimeout,
		5 * time.Second:  5 * time.Second,
		30 * time.Second: MaxProbeTimeout,
	} {
		s := api.DefaultSettings()
		s.ProbeInterval.Duration = interval
		if got := probeTimeout(s); got != want {
			t.Errorf("probing every %s: a round's timeout is %s, want %s", interval, got, want)
		}
	}
}
