package cli

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/corral-dev/corral/placement/hub/scheduler"
)

// builtInPrioritizers are the names --prioritizers takes.
var builtInPrioritizers = []string{scheduler.Balance, scheduler.Steady, scheduler.ResourceAllocatableCPU,
	scheduler.ResourceAllocatableMemory, scheduler.Spread}

// parseLabelSelector parses --label-selector, kubectl's selector syntax.
func parseLabelSelector(s string) (metav1.LabelSelector, error) {
	sel, err := metav1.ParseToLabelSelector(s)
	if err != nil {
		return metav1.LabelSelector{}, fmt.Errorf("--label-selector %q: %v; write it as kubectl does, e.g. 'env=prod,tier in (gold,silver)'", s, oneLine(err))
	}
	return *sel, nil
}

// parseClaimSelector parses --claim-selector, the same syntax, into the
// expressions a ClusterClaimSelector takes: k=v is k In (v).
func parseClaimSelector(s string) (clusterv1beta1.ClusterClaimSelector, error) {
	sel, err := metav1.ParseToLabelSelector(s)
	if err != nil {
		return clusterv1beta1.ClusterClaimSelector{}, fmt.Errorf("--claim-selector %q: %v; write it as a label selector over claims, e.g. 'platform.open-cluster-management.io=AWS,region in (eu,us)'", s, oneLine(err))
	}
	var exprs []metav1.LabelSelectorRequirement
	keys := make([]string, 0, len(sel.MatchLabels))
	for k := range sel.MatchLabels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		exprs = append(exprs, metav1.LabelSelectorRequirement{Key: k, Operator: metav1.LabelSelectorOpIn, Values: []string{sel.MatchLabels[k]}})
	}
	return clusterv1beta1.ClusterClaimSelector{MatchExpressions: append(exprs, sel.MatchExpressions...)}, nil
}

// parsePrioritizers parses --prioritizers, NAME[:WEIGHT] each, into an
// Additive policy: the hub's defaults stay, these are added or reweighed.
func parsePrioritizers(items []string) (clusterv1beta1.PrioritizerPolicy, error) {
	policy := clusterv1beta1.PrioritizerPolicy{Mode: clusterv1beta1.PrioritizerPolicyModeAdditive}
	const example = "e.g. --prioritizers Steady:1,ResourceAllocatableCPU:2"
	for _, item := range items {
		name, w, hasWeight := strings.Cut(strings.TrimSpace(item), ":")
		if !slices.Contains(builtInPrioritizers, name) {
			return policy, fmt.Errorf("--prioritizers %q: %q is not a built-in prioritizer (%s); %s", item, name, strings.Join(builtInPrioritizers, ", "), example)
		}
		weight := int64(1)
		if hasWeight {
			var err error
			if weight, err = strconv.ParseInt(w, 10, 32); err != nil || weight < -10 || weight > 10 {
				return policy, fmt.Errorf("--prioritizers %q: the weight %q is not a whole number from -10 to 10; %s", item, w, example)
			}
		}
		policy.Configurations = append(policy.Configurations, clusterv1beta1.PrioritizerConfig{Weight: int32(weight),
			ScoreCoordinate: &clusterv1beta1.ScoreCoordinate{Type: clusterv1beta1.ScoreCoordinateTypeBuiltIn, BuiltIn: name}})
	}
	return policy, nil
}

var taintEffects = []clusterv1.TaintEffect{clusterv1.TaintEffectNoSelect, clusterv1.TaintEffectPreferNoSelect, clusterv1.TaintEffectNoSelectIfNew}

// parseTolerations parses --tolerations: KEY=VALUE[:EFFECT][@SECONDS] to
// tolerate one value, KEY:Exists[:EFFECT][@SECONDS] any value.
func parseTolerations(items []string) ([]clusterv1beta1.Toleration, error) {
	var out []clusterv1beta1.Toleration
	for _, item := range items {
		t, err := parseToleration(strings.TrimSpace(item))
		if err != nil {
			return nil, fmt.Errorf("--tolerations %q: %w; e.g. --tolerations 'gpu=true:NoSelect,cluster.open-cluster-management.io/unreachable:Exists@300'", item, err)
		}
		out = append(out, t)
	}
	return out, nil
}

func parseToleration(s string) (clusterv1beta1.Toleration, error) {
	t := clusterv1beta1.Toleration{}
	if rest, secs, ok := strings.Cut(s, "@"); ok {
		n, err := strconv.ParseInt(secs, 10, 64)
		if err != nil || n < 0 {
			return t, fmt.Errorf("the seconds after @ (%q) are not a whole number of seconds", secs)
		}
		s, t.TolerationSeconds = rest, &n
	}
	parts := strings.Split(s, ":")
	key, value, hasValue := strings.Cut(parts[0], "=")
	t.Key = key
	if key == "" {
		return t, fmt.Errorf("it names no taint key")
	}
	if hasValue {
		t.Operator, t.Value = clusterv1beta1.TolerationOpEqual, value
	}
	for _, p := range parts[1:] {
		switch {
		case p == string(clusterv1beta1.TolerationOpExists) && !hasValue && t.Operator == "":
			t.Operator = clusterv1beta1.TolerationOpExists
		case p == string(clusterv1beta1.TolerationOpExists):
			return t, errors.New("an Exists toleration takes any value: give KEY:Exists or KEY=VALUE, not both")
		case slices.Contains(taintEffects, clusterv1.TaintEffect(p)) && t.Effect == "":
			t.Effect = clusterv1.TaintEffect(p)
		default:
			return t, fmt.Errorf("%q is neither Exists nor an effect (NoSelect, PreferNoSelect, NoSelectIfNew)", p)
		}
	}
	if t.Operator == "" {
		return t, fmt.Errorf("say which values it tolerates: KEY=VALUE for one, KEY:Exists for any")
	}
	return t, nil
}

// oneLine is err's message on one line.
func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }
