package common

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// The hub's own sets (registration/hub/clusterset, which imports this
// package).
const (
	defaultSet = "default"
	globalSet  = "global"
)

func exclusiveSet(name string) *clusterv1beta2.ManagedClusterSet {
	return &clusterv1beta2.ManagedClusterSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Generation: 1},
		Spec: clusterv1beta2.ManagedClusterSetSpec{ClusterSelector: clusterv1beta2.ManagedClusterSelector{
			SelectorType: clusterv1beta2.ExclusiveClusterSetLabel,
		}},
	}
}

func selectorSet(name string, sel *metav1.LabelSelector) *clusterv1beta2.ManagedClusterSet {
	return &clusterv1beta2.ManagedClusterSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Generation: 1},
		Spec: clusterv1beta2.ManagedClusterSetSpec{ClusterSelector: clusterv1beta2.ManagedClusterSelector{
			SelectorType: clusterv1beta2.LabelSelector, LabelSelector: sel,
		}},
	}
}

func cluster(name string, labels map[string]string) *clusterv1.ManagedCluster {
	return &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

func inSet(set string, more ...string) map[string]string {
	l := map[string]string{clusterv1beta2.ClusterSetLabel: set}
	for i := 0; i+1 < len(more); i += 2 {
		l[more[i]] = more[i+1]
	}
	return l
}

func TestContains(t *testing.T) {
	prodSelector := &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
	cases := map[string]struct {
		set     *clusterv1beta2.ManagedClusterSet
		cluster *clusterv1.ManagedCluster
		want    bool
		wantErr bool
	}{
		"exclusive: the cluster labelled with the set's name is in": {
			set: exclusiveSet("prod"), cluster: cluster("c1", inSet("prod")), want: true,
		},
		"exclusive: a cluster labelled with another set is not": {
			set: exclusiveSet("prod"), cluster: cluster("c1", inSet("dev")),
		},
		"exclusive: an unlabelled cluster is not, not even in default": {
			set: exclusiveSet(defaultSet), cluster: cluster("c1", nil),
		},
		"exclusive: an empty selector type means exclusive": {
			set:     &clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: "prod"}},
			cluster: cluster("c1", inSet("prod")), want: true,
		},
		"exclusive: a label selector on the set is ignored": {
			set: func() *clusterv1beta2.ManagedClusterSet {
				s := exclusiveSet("prod")
				s.Spec.ClusterSelector.LabelSelector = prodSelector
				return s
			}(),
			cluster: cluster("c1", map[string]string{"env": "prod"}),
		},
		"label selector: a matching cluster is in": {
			set: selectorSet("p", prodSelector), cluster: cluster("c1", inSet("dev", "env", "prod")), want: true,
		},
		"label selector: a cluster that does not match is not": {
			set: selectorSet("p", prodSelector), cluster: cluster("c1", map[string]string{"env": "dev"}),
		},
		"label selector: expressions work": {
			set: selectorSet("p", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "env", Operator: metav1.LabelSelectorOpIn, Values: []string{"prod", "staging"}},
			}}),
			cluster: cluster("c1", map[string]string{"env": "staging"}), want: true,
		},
		"label selector: an empty selector holds every cluster": {
			set: selectorSet(globalSet, &metav1.LabelSelector{}), cluster: cluster("c1", nil), want: true,
		},
		"label selector: a missing selector holds none": {
			set: selectorSet("p", nil), cluster: cluster("c1", nil),
		},
		"label selector: an invalid operator is an error": {
			set: selectorSet("p", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "env", Operator: "Near", Values: []string{"prod"}},
			}}),
			cluster: cluster("c1", nil), wantErr: true,
		},
		"an unknown selector type is an error": {
			set: func() *clusterv1beta2.ManagedClusterSet {
				s := exclusiveSet("prod")
				s.Spec.ClusterSelector.SelectorType = "Everything"
				return s
			}(),
			cluster: cluster("c1", inSet("prod")), wantErr: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Contains(tc.set, tc.cluster)
			if (err != nil) != tc.wantErr {
				t.Fatalf("Contains() error = %v, want error %t", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("Contains() = %t, want %t", got, tc.want)
			}
		})
	}
}

func TestSetsOf(t *testing.T) {
	sets := []clusterv1beta2.ManagedClusterSet{
		*exclusiveSet(defaultSet),
		*selectorSet(globalSet, &metav1.LabelSelector{}),
		*exclusiveSet("prod"),
		*selectorSet("eu", &metav1.LabelSelector{MatchLabels: map[string]string{"region": "eu"}}),
		*selectorSet("broken", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "x", Operator: "Bad"}}}),
	}
	cases := map[string]struct {
		labels map[string]string
		want   []string
	}{
		"unlabelled: only global":           {want: []string{globalSet}},
		"default label":                     {labels: inSet(defaultSet), want: []string{defaultSet, globalSet}},
		"one exclusive set and a selection": {labels: inSet("prod", "region", "eu"), want: []string{globalSet, "prod", "eu"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, SetsOf(cluster("c1", tc.labels), sets)); diff != "" {
				t.Errorf("SetsOf() (-want +got):\n%s", diff)
			}
		})
	}
}

// testScheme holds the ManagedClusters Members lists.
func testScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clusterv1.Install(s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestMembers(t *testing.T) {
	objs := []client.Object{
		cluster("a", inSet("prod", "env", "prod")),
		cluster("b", inSet("dev", "env", "prod")),
		cluster("c", nil),
	}
	cases := map[string]struct {
		set  *clusterv1beta2.ManagedClusterSet
		want []string
	}{
		"exclusive set":      {set: exclusiveSet("prod"), want: []string{"a"}},
		"label selector set": {set: selectorSet("p", &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}), want: []string{"a", "b"}},
		"global":             {set: selectorSet(globalSet, &metav1.LabelSelector{}), want: []string{"a", "b", "c"}},
		"a set nobody is in": {set: exclusiveSet("empty")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fake.NewClientBuilder().WithScheme(testScheme(t)).WithObjects(objs...).Build()
			got, err := Members(context.Background(), c, tc.set)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, mc := range got {
				names = append(names, mc.Name)
			}
			if diff := cmp.Diff(tc.want, names); diff != "" {
				t.Errorf("Members() (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMembersOfAnInvalidSet: a set whose selector cannot be evaluated
// fails with an *InvalidSelectorError, which callers tell from a failed
// List.
func TestMembersOfAnInvalidSet(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(testScheme(t)).Build()
	broken := selectorSet("broken", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "x", Operator: "Bad"}}})
	_, err := Members(context.Background(), c, broken, client.UnsafeDisableDeepCopy)
	var invalid *InvalidSelectorError
	if !errors.As(err, &invalid) || !strings.Contains(err.Error(), "ManagedClusterSet broken has an invalid clusterSelector.labelSelector") {
		t.Errorf("Members() error = %v, want an InvalidSelectorError about broken's labelSelector", err)
	}
}
