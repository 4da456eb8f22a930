package override

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/internal/clusterselector"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// Policy is one OverridePolicy or ClusterOverridePolicy, compiled.
type Policy struct {
	// ClusterScoped: a ClusterOverridePolicy, applied before every
	// OverridePolicy.
	ClusterScoped bool
	// Name is the policy's name, namespace/name for an OverridePolicy.
	Name     string
	Priority int32
	Rules    []Rule
}

// String names the policy as the propagations' status does.
func (p *Policy) String() string { return policyName(p.ClusterScoped, p.Name) }

func policyName(clusterScoped bool, name string) string {
	if clusterScoped {
		return "ClusterOverridePolicy " + name
	}
	return "OverridePolicy " + name
}

// Rule is one rule of a policy, its cluster selector compiled.
type Rule struct {
	// Name is the rule's name, or rule-N.
	Name     string
	Spec     v1alpha1.OverrideRule
	selector *clusterselector.Selector // nil: every cluster
}

// Compile compiles a policy's rules; a rule whose cluster selector does
// not compile is an *Error.
func Compile(clusterScoped bool, name string, o v1alpha1.Overrides, selectors *clusterselector.Compiler) (*Policy, error) {
	p := &Policy{ClusterScoped: clusterScoped, Name: name, Priority: o.Priority}
	for i, spec := range o.Rules {
		r := Rule{Name: spec.Name, Spec: spec}
		if r.Name == "" {
			r.Name = fmt.Sprintf("rule-%d", i)
		}
		if spec.ClusterSelector != nil {
			sel, err := selectors.Compile(*spec.ClusterSelector, fmt.Sprintf("spec.rules[%d].clusterSelector", i))
			if err != nil {
				return nil, &Error{Policy: p.String(), Rule: r.Name, Err: err}
			}
			r.selector = sel
		}
		p.Rules = append(p.Rules, r)
	}
	return p, nil
}

// Error is a rule that could not apply, or whose selector does not
// compile.
type Error struct {
	Policy, Rule string
	Err          error
}

func (e *Error) Error() string { return fmt.Sprintf("%s, rule %s: %v", e.Policy, e.Rule, e.Err) }

func (e *Error) Unwrap() error { return e.Err }

// Apply renders obj (an object's content, as unstructured) for cluster:
// a copy of it with every rule of policies, in their order (a
// revision's, Snapshot's), whose selector matches the cluster; and the rules applied,
// each as "<policy>, rule <name>". obj is not changed. A rule that cannot
// apply is an *Error.
func Apply(obj map[string]any, policies []*Policy, cluster *clusterv1.ManagedCluster) (map[string]any, []string, error) {
	out := runtime.DeepCopyJSON(obj)
	vars := variables{cluster: cluster}
	var applied []string
	for _, p := range policies {
		for _, r := range p.Rules {
			if r.selector != nil {
				if ok, _ := r.selector.Matches(cluster, false); !ok {
					continue
				}
			}
			if err := r.apply(out, vars); err != nil {
				return nil, nil, &Error{Policy: p.String(), Rule: r.Name, Err: err}
			}
			applied = append(applied, fmt.Sprintf("%s, rule %s", p, r.Name))
		}
	}
	return out, applied, nil
}

// apply makes the rule's changes to obj: metadata, then images and
// containers, then the JSON patch, which may change what the others did.
func (r *Rule) apply(obj map[string]any, vars variables) error {
	steps := []func(map[string]any, variables) error{r.labels, r.annotations, r.images, r.containers, r.jsonPatch}
	for _, step := range steps {
		if err := step(obj, vars); err != nil {
			return err
		}
	}
	return nil
}
