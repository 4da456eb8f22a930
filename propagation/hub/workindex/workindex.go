// Package workindex is the hub cache's index of ManifestWorks by the
// (Cluster)Propagation they carry, which the distributor and the status
// controller list a propagation's works by. Listing by the propagation's
// labels instead made the cache match the labels of every work of every
// cluster on each reconcile: with 1000 propagations over 10 clusters,
// 10 000 works per reconcile, 11% of the hub's CPU in
// test/benchmark/propagation, and growing with the fleet times the
// propagations. The index finds a propagation's works directly.
package workindex

import (
	"context"
	"fmt"

	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/fieldindex"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// Field is the index's name.
const Field = "metadata.labels." + v1alpha1.LabelPropagation

// Key is the index's key of the works of the propagation namespace/name;
// a ClusterPropagation's namespace is "". A Propagation's namespace is
// never empty and no name holds a slash, so keys do not collide.
func Key(namespace, name string) string { return namespace + "/" + name }

// KeyOf is the index function: a work's key, from its labels; none for a
// work that is no propagation's.
func KeyOf(o client.Object) []string {
	labels := o.GetLabels()
	name, ok := labels[v1alpha1.LabelPropagation]
	if !ok {
		return nil
	}
	return []string{Key(labels[v1alpha1.LabelPropagationNamespace], name)}
}

// Register adds the index to mgr's cache, once: the distributor and the
// status controller both call it, and either may run alone.
func Register(mgr ctrl.Manager) error {
	return fieldindex.Once(mgr.GetFieldIndexer(), &workv1.ManifestWork{}, Field, KeyOf)
}

// List lists the works of the propagation namespace/name through a
// reader whose cache has the index. They are the cache's own objects,
// not copies, when readOnly: the caller must not change them.
func List(ctx context.Context, reader client.Reader, namespace, name string, readOnly bool) ([]workv1.ManifestWork, error) {
	list := &workv1.ManifestWorkList{}
	opts := []client.ListOption{client.MatchingFields{Field: Key(namespace, name)}}
	if readOnly {
		opts = append(opts, client.UnsafeDisableDeepCopy)
	}
	if err := reader.List(ctx, list, opts...); err != nil {
		return nil, fmt.Errorf("listing the propagation's ManifestWorks: %w", err)
	}
	return list.Items, nil
}
