package distribute

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/sets"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/corral-dev/corral/internal/clusterselector"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/division"
)

// divided is a workload of the delivered revision whose replicas are
// divided over the clusters.
type divided struct {
	// index is the object's in the revision.
	index int
	// path is where it holds its replicas (division.PathOf).
	path string
	// total is the template's replicas.
	total int32
	ref   v1alpha1.ObjectReference
	// shares are each cluster's, once divide ran.
	shares map[string]int32
}

// policyError is a replicaScheduling that cannot be followed: nothing is
// delivered until it is fixed.
type policyError struct{ err error }

func (e *policyError) Error() string { return "spec.replicaScheduling: " + e.err.Error() }

func (e *policyError) Unwrap() error { return e.err }

// divisible are the workloads of objects whose replicas the policy
// divides, and the policy's weigher: under Divided, those of a kind with a
// replica path (division.PathOf) holding a replica count; none under
// Duplicated. A weight's cluster selector that does not compile is a
// *policyError.
func divisible(objects []workv1.Manifest, policy *v1alpha1.ReplicaScheduling, compiler *clusterselector.Compiler) ([]*divided, *division.Weigher, error) {
	if policy == nil || policy.Type != v1alpha1.ReplicaSchedulingDivided {
		return nil, nil, nil
	}
	weigher, err := division.NewWeigher(policy, compiler)
	if err != nil {
		return nil, nil, &policyError{err}
	}
	var out []*divided
	for i, m := range objects {
		u := &unstructured.Unstructured{}
		if err := utiljson.Unmarshal(m.Raw, &u.Object); err != nil {
			continue // the status names no such object either
		}
		gvk := u.GroupVersionKind()
		path := division.PathOf(gvk.GroupKind(), policy.ReplicaPaths)
		if path == "" {
			continue
		}
		total, ok := division.Replicas(u.Object, path)
		if !ok {
			continue
		}
		out = append(out, &divided{index: i, path: path, total: total,
			ref: v1alpha1.ObjectReference{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, Namespace: u.GetNamespace(), Name: u.GetName()}})
	}
	return out, weigher, nil
}

// divide splits each divided workload's replicas over clusters (those
// the placements select) by the policy's weights, moving the fewest from
// the shares the status has (previous). A cluster whose ManagedCluster
// cannot be read is left out: it fails as it is rendered.
func (c *contents) divide(ctx context.Context, clusters sets.Set[string], previous []v1alpha1.ClusterStatus) error {
	if c == nil || len(c.divided) == 0 {
		return nil
	}
	var mcs []*clusterv1.ManagedCluster
	for _, name := range sets.List(clusters) {
		if mc, err := c.clusters(ctx, name); err == nil {
			mcs = append(mcs, mc)
		}
	}
	weights := c.weigher.Weigh(mcs, c.scores)
	var err error
	for _, d := range c.divided {
		had := map[string]int32{}
		for _, cs := range previous {
			if i := slices.IndexFunc(cs.Replicas, func(s v1alpha1.ReplicaShare) bool { return sameObject(s.ObjectReference, d.ref) }); i >= 0 {
				had[cs.Cluster] = cs.Replicas[i].Replicas
			}
		}
		if d.shares, err = division.Divide(d.total, weights, had); err != nil {
			return fmt.Errorf("dividing the replicas of %s %s: %w", d.ref.Kind, d.ref.Name, err)
		}
	}
	return nil
}

// sameObject says a and b name one object, in any version.
func sameObject(a, b v1alpha1.ObjectReference) bool {
	return a.Group == b.Group && a.Kind == b.Kind && a.Namespace == b.Namespace && a.Name == b.Name
}

// share is the revision's objects with the cluster's shares of the
// divided workloads, and the shares.
func (c *contents) share(cluster string) ([]workv1.Manifest, []v1alpha1.ReplicaShare, error) {
	if len(c.divided) == 0 {
		return c.objects, nil, nil
	}
	out := slices.Clone(c.objects)
	shares := make([]v1alpha1.ReplicaShare, 0, len(c.divided))
	for _, d := range c.divided {
		if d.shares == nil {
			return nil, nil, errors.New("the replicas are not divided yet")
		}
		n := d.shares[cluster]
		obj := map[string]any{}
		if err := utiljson.Unmarshal(c.objects[d.index].Raw, &obj); err != nil {
			return nil, nil, err
		}
		if err := division.SetReplicas(obj, d.path, n); err != nil {
			return nil, nil, err
		}
		raw, err := json.Marshal(obj)
		if err != nil {
			return nil, nil, err
		}
		out[d.index] = workv1.Manifest{RawExtension: runtime.RawExtension{Raw: raw}}
		shares = append(shares, v1alpha1.ReplicaShare{ObjectReference: d.ref, Replicas: n})
	}
	return out, shares, nil
}
