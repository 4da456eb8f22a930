package distribute

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clocktesting "k8s.io/utils/clock/testing"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// TestRollOutRechecksOnTheClock: a rollout waiting out minSuccessTime
// leaves a timer on the injected clock, not a requeue on the real one,
// and the next cluster is reached once that clock has moved on.
func TestRollOutRechecksOnTheClock(t *testing.T) {
	strategy := clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.Progressive,
		Progressive: &clusterv1alpha1.RolloutProgressive{MaxConcurrency: intstr.FromInt32(1),
			RolloutConfig: clusterv1alpha1.RolloutConfig{MinSuccessTime: metav1.Duration{Duration: time.Hour}}}}
	objs := append([]client.Object{newProp(strategy), rev(1, configMap("blue")), rev(2, configMap("green")),
		work("c1", 2, done...), work("c2", 1, done...)}, placement("c1", "c2")...)
	c := fakeClient(t, interceptor.Funcs{}, objs...)
	r := reconciler(c)
	clock := r.Clock.(*clocktesting.FakeClock)

	res, err := r.Reconcile(t.Context(), reqWeb)
	if err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	w := WorkName("shop", "web", 0)
	if got := revisionsOnClusters(t, c)["c2/"+w]; got != "1" {
		t.Errorf("c2 has revision %s within c1's minSuccessTime, want 1", got)
	}
	if res.RequeueAfter != 0 || !clock.HasWaiters() {
		t.Errorf("requeue after %v, a timer on the clock %t; want no requeue and a timer", res.RequeueAfter, clock.HasWaiters())
	}

	clock.Step(time.Hour)
	run(t, r)
	if got := revisionsOnClusters(t, c)["c2/"+w]; got != "2" {
		t.Errorf("c2 has revision %s once c1's minSuccessTime passed, want 2", got)
	}
}
