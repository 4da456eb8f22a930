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

	"github.com/corral-dev/corral/internal/testing/builder"
)

// The hub's own sets (registration/hub/clusterset, which imports this
// package).
const (
	defaultSet = "default"
	globalSet  = "global"
)

func TestContains(t *testing.T) {
	prodSelector := &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
	cases := map[string]struct {
		set     *clusterv1beta2.ManagedClusterSet
		cluster *clusterv1.ManagedCluster
		want    bool
		wantErr bool
	}{
		"exclusive: the cluster labelled with the set's name is in": {
			set: builder.ClusterSet("prod").Obj(), cluster: builder.Cluster("c1").InSet("prod").Obj(), want: true,
		},
		"exclusive: a cluster labelled with another set is not": {
			set: builder.ClusterSet("prod").Obj(), cluster: builder.Cluster("c1").InSet("dev").Obj(),
		},
		"exclusive: an unlabelled cluster is not, not even in default": {
			set: builder.ClusterSet(defaultSet).Obj(), cluster: builder.Cluster("c1").Obj(),
		},
		"exclusive: an empty selector type means exclusive": {
			set:     &clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: "prod"}},
			cluster: builder.Cluster("c1").InSet("prod").Obj(), want: true,
		},
		"exclusive: a label selector on the set is ignored": {
			set: func() *clusterv1beta2.ManagedClusterSet {
				s := builder.ClusterSet("prod").Obj()
				s.Spec.ClusterSelector.LabelSelector = prodSelector
				return s
			}(),
			cluster: builder.Cluster("c1").Label("env", "prod").Obj(),
		},
		"label selector: a matching cluster is in": {
			set: builder.ClusterSet("p").Selector(prodSelector).Obj(), cluster: builder.Cluster("c1").InSet("dev").Label("env", "prod").Obj(), want: true,
		},
		"label selector: a cluster that does not match is not": {
			set: builder.ClusterSet("p").Selector(prodSelector).Obj(), cluster: builder.Cluster("c1").Label("env", "dev").Obj(),
		},
		"label selector: expressions work": {
			set: builder.ClusterSet("p").Selector(&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "env", Operator: metav1.LabelSelectorOpIn, Values: []string{"prod", "staging"}},
			}}).Obj(),
			cluster: builder.Cluster("c1").Label("env", "staging").Obj(), want: true,
		},
		"label selector: an empty selector holds every cluster": {
			set: builder.ClusterSet(globalSet).Selector(&metav1.LabelSelector{}).Obj(), cluster: builder.Cluster("c1").Obj(), want: true,
		},
		"label selector: a missing selector holds none": {
			set: builder.ClusterSet("p").Selector(nil).Obj(), cluster: builder.Cluster("c1").Obj(),
		},
		"label selector: an invalid operator is an error": {
			set: builder.ClusterSet("p").Selector(&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "env", Operator: "Near", Values: []string{"prod"}},
			}}).Obj(),
			cluster: builder.Cluster("c1").Obj(), wantErr: true,
		},
		"an unknown selector type is an error": {
			set: func() *clusterv1beta2.ManagedClusterSet {
				s := builder.ClusterSet("prod").Obj()
				s.Spec.ClusterSelector.SelectorType = "Everything"
				return s
			}(),
			cluster: builder.Cluster("c1").InSet("prod").Obj(), wantErr: true,
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
		*builder.ClusterSet(defaultSet).Obj(),
		*builder.ClusterSet(globalSet).Selector(&metav1.LabelSelector{}).Obj(),
		*builder.ClusterSet("prod").Obj(),
		*builder.ClusterSet("eu").Selector(&metav1.LabelSelector{MatchLabels: map[string]string{"region": "eu"}}).Obj(),
		*builder.ClusterSet("broken").Selector(&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "x", Operator: "Bad"}}}).Obj(),
	}
	cases := map[string]struct {
		cluster *clusterv1.ManagedCluster
		want    []string
	}{
		"unlabelled: only global":           {cluster: builder.Cluster("c1").Obj(), want: []string{globalSet}},
		"default label":                     {cluster: builder.Cluster("c1").InSet(defaultSet).Obj(), want: []string{defaultSet, globalSet}},
		"one exclusive set and a selection": {cluster: builder.Cluster("c1").InSet("prod").Label("region", "eu").Obj(), want: []string{globalSet, "prod", "eu"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, SetsOf(tc.cluster, sets)); diff != "" {
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
		builder.Cluster("a").InSet("prod").Label("env", "prod").Obj(),
		builder.Cluster("b").InSet("dev").Label("env", "prod").Obj(),
		builder.Cluster("c").Obj(),
	}
	cases := map[string]struct {
		set  *clusterv1beta2.ManagedClusterSet
		want []string
	}{
		"exclusive set":      {set: builder.ClusterSet("prod").Obj(), want: []string{"a"}},
		"label selector set": {set: builder.ClusterSet("p").Selector(&metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}).Obj(), want: []string{"a", "b"}},
		"global":             {set: builder.ClusterSet(globalSet).Selector(&metav1.LabelSelector{}).Obj(), want: []string{"a", "b", "c"}},
		"a set nobody is in": {set: builder.ClusterSet("empty").Obj()},
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
	broken := builder.ClusterSet("broken").Selector(&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "x", Operator: "Bad"}}}).Obj()
	_, err := Members(context.Background(), c, broken, client.UnsafeDisableDeepCopy)
	var invalid *InvalidSelectorError
	if !errors.As(err, &invalid) || !strings.Contains(err.Error(), "ManagedClusterSet broken has an invalid clusterSelector.labelSelector") {
		t.Errorf("Members() error = %v, want an InvalidSelectorError about broken's labelSelector", err)
	}
}
