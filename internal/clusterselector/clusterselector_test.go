package clusterselector

import (
	"errors"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
)

type scores map[string]*clusterv1alpha1.AddOnPlacementScore

func (s scores) Score(namespace, name string) *clusterv1alpha1.AddOnPlacementScore {
	return s[namespace+"/"+name]
}

func cluster(name string, labels map[string]string, claims ...string) *clusterv1.ManagedCluster {
	c := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	for i := 0; i+1 < len(claims); i += 2 {
		c.Status.ClusterClaims = append(c.Status.ClusterClaims, clusterv1.ManagedClusterClaim{Name: claims[i], Value: claims[i+1]})
	}
	return c
}

func TestMatches(t *testing.T) {
	east := cluster("east", map[string]string{"env": "prod"}, "region", "us-east")
	west := cluster("west", map[string]string{"env": "dev"}, "region", "us-west")
	cpu := scores{"east/resource-usage": {Status: clusterv1alpha1.AddOnPlacementScoreStatus{
		Scores: []clusterv1alpha1.AddOnPlacementScoreItem{{Name: "cpuAvailable", Value: 80}}}}}
	for name, tc := range map[string]struct {
		sel       clusterv1beta1.ClusterSelector
		east, wst bool
		why       string // west's reason, explained
	}{
		"empty: every cluster": {east: true, wst: true},
		"labels": {sel: clusterv1beta1.ClusterSelector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}},
			east: true, why: "labels do not match env=prod"},
		"claims": {sel: clusterv1beta1.ClusterSelector{ClaimSelector: clusterv1beta1.ClusterClaimSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "region", Operator: metav1.LabelSelectorOpIn, Values: []string{"us-east"}}}}},
			east: true, why: "claims do not match region in (us-east)"},
		"CEL on the cluster's name": {sel: clusterv1beta1.ClusterSelector{CelSelector: clusterv1beta1.ClusterCelSelector{
			CelExpressions: []string{`managedCluster.metadata.name == "east"`}}},
			east: true, why: `CEL "managedCluster.metadata.name == \"east\"" is false`},
		"CEL on a score": {sel: clusterv1beta1.ClusterSelector{CelSelector: clusterv1beta1.ClusterCelSelector{
			CelExpressions: []string{`managedCluster.scores("resource-usage").filter(s, s.name == "cpuAvailable").all(e, e.value > 50)`}}},
			east: true, why: "CEL"},
		"all three ANDed": {sel: clusterv1beta1.ClusterSelector{
			LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}},
			ClaimSelector: clusterv1beta1.ClusterClaimSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "region", Operator: metav1.LabelSelectorOpExists}}},
			CelSelector:   clusterv1beta1.ClusterCelSelector{CelExpressions: []string{`managedCluster.metadata.name == "east"`}},
		}, east: true, why: "labels do not match"},
	} {
		t.Run(name, func(t *testing.T) {
			sel, err := NewCompiler(cpu).Compile(tc.sel, "spec.rules[0].clusterSelector")
			if err != nil {
				t.Fatal(err)
			}
			if got, why := sel.Matches(east, true); got != tc.east {
				t.Errorf("east: matches %v (%s), want %v", got, why, tc.east)
			}
			got, why := sel.Matches(west, true)
			if got != tc.wst || !strings.Contains(why, tc.why) {
				t.Errorf("west: matches %v (%q), want %v (%q)", got, why, tc.wst, tc.why)
			}
			if _, why := sel.Matches(west, false); why != "" && !strings.HasPrefix(why, "CEL") {
				t.Errorf("west, not explained: %q, want no reason", why)
			}
		})
	}
}

func TestCompileRefuses(t *testing.T) {
	for name, tc := range map[string]struct {
		compiler *Compiler
		sel      clusterv1beta1.ClusterSelector
		want     string
	}{
		"a bad label selector": {compiler: NewCompiler(nil), sel: clusterv1beta1.ClusterSelector{LabelSelector: metav1.LabelSelector{
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: "Near"}}}},
			want: "f.labelSelector is invalid"},
		"CEL that does not compile": {compiler: NewCompiler(nil), sel: clusterv1beta1.ClusterSelector{CelSelector: clusterv1beta1.ClusterCelSelector{
			CelExpressions: []string{"managedCluster.metadata.name =="}}},
			want: `f.celSelector.celExpressions[0] "managedCluster.metadata.name ==" does not compile`},
		"CEL that is not a bool": {compiler: NewCompiler(nil), sel: clusterv1beta1.ClusterSelector{CelSelector: clusterv1beta1.ClusterCelSelector{
			CelExpressions: []string{`"east"`}}},
			want: "it must be a bool"},
		"CEL where none is supported": {sel: clusterv1beta1.ClusterSelector{CelSelector: clusterv1beta1.ClusterCelSelector{
			CelExpressions: []string{"true"}}},
			want: "f.celSelector: CEL expressions are not supported here"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := tc.compiler.Compile(tc.sel, "f")
			var invalid *InvalidError
			if !errors.As(err, &invalid) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Compile: %v, want an *InvalidError saying %q", err, tc.want)
			}
		})
	}
}
