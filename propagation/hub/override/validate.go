package override

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/corral-dev/corral/internal/clusterselector"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// Validate finds what makes a policy wrong on every cluster, before any
// is rendered for: a resource selector's label selector that does not
// parse, a rule's cluster selector that does not compile (CEL
// included), a JSON patch operation without the value it takes or with
// one it does not, a value that is not JSON, an unknown ${CLUSTER_…}
// variable, a label or annotation key that is not one, a label value
// that is not one (unless a variable makes it). The CRD's schema cannot
// see these (a patch value is schemaless). What depends on the object or
// the cluster (a path that does not exist there, a label it lacks) fails
// on that cluster only, as it is rendered. The first problem is an
// *Error naming the policy and, for a rule, the rule.
func Validate(clusterScoped bool, name string, selectors []v1alpha1.ResourceSelector, o v1alpha1.Overrides) error {
	policy := policyName(clusterScoped, name)
	for i, sel := range selectors {
		if sel.LabelSelector == nil {
			continue
		}
		if _, err := metav1.LabelSelectorAsSelector(sel.LabelSelector); err != nil {
			return &Error{Policy: policy, Rule: "-", Err: fmt.Errorf("resourceSelectors[%d].labelSelector: %w", i, err)}
		}
	}
	p, err := Compile(clusterScoped, name, o, clusterselector.NewCompiler(nil))
	if err != nil {
		return err
	}
	for i, r := range p.Rules {
		if slices.ContainsFunc(p.Rules[:i], func(o Rule) bool { return o.Name == r.Name }) {
			return &Error{Policy: policy, Rule: r.Name, Err: fmt.Errorf("two rules are named %s: name them apart, status names rules by name", r.Name)}
		}
		if err := r.validate(); err != nil {
			return &Error{Policy: policy, Rule: r.Name, Err: err}
		}
	}
	return nil
}

// validate checks one rule's changes.
func (r *Rule) validate() error {
	spec := r.Spec
	for i, op := range spec.JSONPatch {
		value, err := patchValue(i, op)
		if err != nil {
			return err
		}
		if _, err := eachString(value, func(s string) (string, error) { return s, checkVariables(s) }); err != nil {
			return fmt.Errorf("jsonPatch[%d]: %w", i, err)
		}
	}
	if err := checkMetadata("setLabels", spec.SetLabels, spec.RemoveLabels, validation.IsValidLabelValue); err != nil {
		return err
	}
	if err := checkMetadata("setAnnotations", spec.SetAnnotations, spec.RemoveAnnotations, nil); err != nil {
		return err
	}
	for i, o := range spec.Images {
		for _, s := range []string{o.Registry, o.Repository, o.Tag} {
			if err := checkVariables(s); err != nil {
				return fmt.Errorf("images[%d]: %w", i, err)
			}
		}
	}
	for i, o := range spec.Containers {
		for _, s := range slices.Concat(o.Command, o.Args) {
			if err := checkVariables(s); err != nil {
				return fmt.Errorf("containers[%d]: %w", i, err)
			}
		}
	}
	return nil
}

// checkMetadata checks the keys set and removed, and the values set (by
// isValue when given, unless a variable makes them, which is checked as
// the rule applies).
func checkMetadata(field string, set map[string]string, remove []string, isValue func(string) []string) error {
	for k, v := range set {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return fmt.Errorf("%s: key %q: %s", field, k, strings.Join(errs, "; "))
		}
		if err := checkVariables(v); err != nil {
			return fmt.Errorf("%s[%s]: %w", field, k, err)
		}
		if isValue != nil && !variable.MatchString(v) {
			if errs := isValue(v); len(errs) > 0 {
				return fmt.Errorf("%s[%s]: value %q: %s", field, k, v, strings.Join(errs, "; "))
			}
		}
	}
	for _, k := range remove {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return fmt.Errorf("remove%s: key %q: %s", strings.TrimPrefix(field, "set"), k, strings.Join(errs, "; "))
		}
	}
	return nil
}
