package addons

import (
	"context"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// ClusterOf maps an object in a cluster namespace (a ManagedClusterAddOn,
// an addon's report) to the ManagedCluster of that namespace: the one map
// function the hub halves and the addon lifecycle watch such objects with.
func ClusterOf(_ context.Context, obj client.Object) []reconcile.Request {
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: obj.GetNamespace()}}}
}
