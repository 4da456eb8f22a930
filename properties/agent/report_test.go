package agent

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/corral-dev/corral/properties/api"
)

// TestReportCoalesces checks a report is written when a property changes
// and not when only the time it was observed did.
func TestReportCoalesces(t *testing.T) {
	hub := fake.NewClientset()
	a := &Agent{opts: Options{ClusterName: "c1"}, hub: hub}
	writes := func() int {
		n := 0
		for _, act := range hub.Actions() {
			if act.GetVerb() == "create" || act.GetVerb() == "update" {
				n++
			}
		}
		return n
	}
	t0 := metav1.NewTime(time.Unix(1000, 0))
	r := api.Report{ObservedTime: t0, KubernetesVersion: "v1.35.4", Nodes: 2}
	ctx := context.Background()
	if err := a.report(ctx, r); err != nil {
		t.Fatal(err)
	}
	r.ObservedTime = metav1.NewTime(t0.Add(time.Minute))
	if err := a.report(ctx, r); err != nil {
		t.Fatal(err)
	}
	if got := writes(); got != 1 {
		t.Errorf("%d writes after an unchanged report, want 1", got)
	}
	// A restarted agent reads what it stored and does not write it again.
	restarted := &Agent{opts: Options{ClusterName: "c1"}, hub: hub}
	if err := restarted.report(ctx, r); err != nil {
		t.Fatal(err)
	}
	if got := writes(); got != 1 {
		t.Errorf("%d writes after a restart with nothing changed, want 1", got)
	}
	r.Nodes = 3
	if err := a.report(ctx, r); err != nil {
		t.Fatal(err)
	}
	if got := writes(); got != 2 {
		t.Errorf("%d writes after a node came, want 2", got)
	}
}
