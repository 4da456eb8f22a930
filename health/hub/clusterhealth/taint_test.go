package clusterhealth

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/health/api"
)

func TestTaints(t *testing.T) {
	now := metav1.NewTime(time.Unix(1, 0))
	other := clusterv1.Taint{Key: "x", Effect: clusterv1.TaintEffectNoSelect}
	unhealthy := clusterv1.Taint{Key: api.TaintUnhealthy, Effect: clusterv1.TaintEffectNoSelect, TimeAdded: metav1.NewTime(time.Unix(0, 0))}
	if got := Taints([]clusterv1.Taint{other}, true, now); len(got) != 2 || got[1].Key != api.TaintUnhealthy || !got[1].TimeAdded.Equal(&now) {
		t.Errorf("adding: %v", got)
	}
	if got := Taints([]clusterv1.Taint{unhealthy, other}, true, now); !got[0].TimeAdded.Equal(&unhealthy.TimeAdded) {
		t.Errorf("a taint that stays keeps its time: %v", got)
	}
	if got := Taints([]clusterv1.Taint{unhealthy, other}, false, now); len(got) != 1 || got[0].Key != "x" {
		t.Errorf("removing: %v", got)
	}
}
