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
		"the finalizer added (by this controller) passes nothing": {old: c1().Accepted().Obj(), new: c1().Accepted().Finalizer(clusterv1.ManagedClusterFinalizer).Obj()},
		"the finalizer taken away passes":                         {old: c1().Accepted().Finalizer(clusterv1.ManagedClusterFinalizer).Obj(), new: c1().Accepted().Obj(), want: true},
		"another finalizer added passes nothing":                  {old: c1().Finalizer(clusterv1.ManagedClusterFinalizer).Obj(), new: c1().Finalizer(clusterv1.ManagedClusterFinalizer).Finalizer("example.com/other").Obj()},
		"a deletion starting passes":                              {old: c1().Finalizer(clusterv1.ManagedClusterFinalizer).Obj(), new: c1().Finalizer(clusterv1.ManagedClusterFinalizer).Deleting(now).Obj(), want: true},
		"a status change passes nothing":                          {old: c1().Finalizer(clusterv1.ManagedClusterFinalizer).Obj(), new: c1().Finalizer(clusterv1.ManagedClusterFinalizer).Condition(wasAccepted).Obj()},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := (finalizerLostOrDeletion{}).Update(event.UpdateEvent{ObjectOld: tc.old, ObjectNew: tc.new}); got != tc.want {
				t.Errorf("Update() = %t, want %t", got, tc.want)
			}
		})
	}
}
