package agent

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/corral-dev/corral/addons/configmapchannel"
	"github.com/corral-dev/corral/health/api"
)

func readyNode(name string, ready corev1.ConditionStatus) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready}}}}
}

func TestCountNodes(t *testing.T) {
	got := CountNodes([]corev1.Node{*readyNode("a", corev1.ConditionTrue), *readyNode("b", corev1.ConditionFalse), {ObjectMeta: metav1.ObjectMeta{Name: "c"}}})
	if got.Total != 3 || got.Ready != 1 || len(got.NotReady) != 2 || got.NotReady[0] != "b" {
		t.Errorf("CountNodes = %+v", got)
	}
}

// TestSyncHeartbeat checks an unchanged report is written again only when
// a third of staleAfter passed, and a changed one at once.
func TestSyncHeartbeat(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	hub := fake.NewClientset()
	managed := fake.NewClientset(readyNode("a", corev1.ConditionTrue))
	a := &Agent{opts: Options{ClusterName: "c1", Clock: clk}, hub: hub, kube: managed}
	s := api.Settings{ProbeInterval: api.Duration{Duration: 10 * time.Second}, StaleAfter: api.Duration{Duration: 90 * time.Second}}
	ctx := context.Background()
	writes := func() int {
		n := 0
		for _, act := range hub.Actions() {
			if act.GetVerb() == "create" || act.GetVerb() == "update" {
				n++
			}
		}
		return n
	}
	sync := func() {
		t.Helper()
		if err := a.Sync(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	sync()
	clk.Step(10 * time.Second)
	sync()
	if got := writes(); got != 1 {
		t.Errorf("%d writes within the heartbeat, want 1", got)
	}
	clk.Step(20 * time.Second)
	sync()
	if got := writes(); got != 2 {
		t.Errorf("%d writes after a third of staleAfter, want 2", got)
	}
	if _, err := managed.CoreV1().Nodes().Create(ctx, readyNode("b", corev1.ConditionFalse), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	clk.Step(time.Second)
	sync()
	if got := writes(); got != 3 {
		t.Errorf("%d writes after a node went NotReady, want 3", got)
	}
	var r api.Report
	if _, err := configmapchannel.Read(ctx, hub, "c1", api.ReportName, &r); err != nil {
		t.Fatal(err)
	}
	if r.Nodes.Total != 2 || r.Nodes.Ready != 1 || !r.ProbeTime.Time.Equal(clk.Now()) {
		t.Errorf("report %+v", r)
	}
}

// TestSettings checks the agent probes with the defaults until the hub
// has settings for it, then with those. The following itself is
// addons/settings'.
func TestSettings(t *testing.T) {
	hub := fake.NewClientset()
	opts := Options{ClusterName: "c1", Clock: clocktesting.NewFakeClock(time.Unix(1000, 0))}
	a := &Agent{opts: opts, hub: hub, settings: newSettings(hub, opts)}
	if diff := cmp.Diff(api.DefaultSettings(), a.settings.Current()); diff != "" {
		t.Errorf("settings with none on the hub (-want +got):\n%s", diff)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.settings.Follow(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	want := api.Settings{ProbeInterval: api.Duration{Duration: 5 * time.Second}, StaleAfter: api.Duration{Duration: time.Minute}, MinReadyNodeShare: 1,
		Workloads: []api.WorkloadRef{{Kind: api.KindDeployment, Namespace: "kube-system", Name: "coredns"}}}
	cm, err := configmapchannel.Object("c1", api.ConfigName, api.AddonName, want)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hub.CoreV1().ConfigMaps("c1").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return cmp.Equal(a.settings.Current(), want), nil
	})
	if err != nil {
		t.Errorf("settings not the hub's (-want +got):\n%s", cmp.Diff(want, a.settings.Current()))
	}
}
