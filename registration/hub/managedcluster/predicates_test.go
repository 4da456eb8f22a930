package managedcluster

import (
	"testing"

	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"
)

func TestFinalizerLostOrDeletion(t *testing.T) {
	cases := map[string]struct {
		old, new *clusterv1.ManagedCluster
		want     bool
	}{
		"the finalizer added (by this controller) passes nothing": {old: cluster(accepted), new: cluster(accepted, finalized)},
		"the finalizer taken away passes":                         {old: cluster(accepted, finalized), new: cluster(accepted), want: true},
		"another finalizer added passes nothing":                  {old: cluster(finalized), new: cluster(finalized, otherFinalizer)},
		"a deletion starting passes":                              {old: cluster(finalized), new: cluster(finalized, deleting), want: true},
		"a status change passes nothing":                          {old: cluster(finalized), new: cluster(finalized, wasAccepted)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := (finalizerLostOrDeletion{}).Update(event.UpdateEvent{ObjectOld: tc.old, ObjectNew: tc.new}); got != tc.want {
				t.Errorf("Update() = %t, want %t", got, tc.want)
			}
		})
	}
}
