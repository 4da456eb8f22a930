package override

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/corral-dev/corral/internal/clusterselector"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// Compiled is a revision's override policies, compiled once for every
// cluster it is rendered for.
type Compiled struct {
	policies []*Policy
	objects  [][]int32 // per policy, the indexes of the objects it changes
}

// CompileSnapshots compiles a revision's overrides (RevisionSpec
// .Overrides, already in the order they apply).
func CompileSnapshots(snaps []v1alpha1.OverrideSnapshot, selectors *clusterselector.Compiler) (*Compiled, error) {
	c := &Compiled{}
	for _, s := range snaps {
		p, err := Compile(s.ClusterScoped, s.Name, v1alpha1.Overrides{Priority: s.Priority, Rules: s.Rules}, selectors)
		if err != nil {
			return nil, err
		}
		c.policies = append(c.policies, p)
		c.objects = append(c.objects, s.Objects)
	}
	return c, nil
}

// Render is what cluster receives of manifests (a revision's objects):
// each object with the rules of the policies that change it applied, in
// order, and the rules applied, object by object (index → rules). An
// object no rule changes is its manifest as it is, not re-encoded. A rule
// that cannot apply is an *Error, and nothing is rendered.
func (c *Compiled) Render(manifests []workv1.Manifest, cluster *clusterv1.ManagedCluster) ([]workv1.Manifest, map[int][]string, error) {
	byObject := map[int][]*Policy{}
	for i, p := range c.policies {
		for _, idx := range c.objects[i] {
			if int(idx) < 0 || int(idx) >= len(manifests) {
				return nil, nil, &Error{Policy: p.String(), Rule: "-", Err: fmt.Errorf("object %d: the revision has %d", idx, len(manifests))}
			}
			byObject[int(idx)] = append(byObject[int(idx)], p)
		}
	}
	out := make([]workv1.Manifest, len(manifests))
	copy(out, manifests)
	applied := map[int][]string{}
	for idx, policies := range byObject {
		obj := map[string]any{}
		if err := utiljson.Unmarshal(manifests[idx].Raw, &obj); err != nil {
			return nil, nil, fmt.Errorf("object %d of the revision is not JSON: %w", idx, err)
		}
		rendered, rules, err := Apply(obj, policies, cluster)
		if err != nil {
			return nil, nil, err
		}
		if len(rules) == 0 {
			continue
		}
		raw, err := json.Marshal(rendered)
		if err != nil {
			return nil, nil, err
		}
		out[idx] = workv1.Manifest{RawExtension: runtime.RawExtension{Raw: raw}}
		applied[idx] = rules
	}
	return out, applied, nil
}
