package cli

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/testing/builder"
)

func TestDisable(t *testing.T) {
	base := func() []client.Object {
		return []client.Object{clusterSet("prod"), acceptedCluster("c1"), acceptedCluster("c2"),
			builder.AddOn("c1", "hello").Obj(), builder.AddOn("c2", "hello").Obj(), builder.AddOn("c1", "other").Obj()}
	}
	cases := map[string]struct {
		target   target
		wantOut  string
		wantLeft []string
	}{
		"named clusters": {target: target{Clusters: []string{"c1", "c3"}},
			wantOut:  "addon hello disabled on cluster c1\naddon hello is not enabled on cluster c3\n",
			wantLeft: []string{"c1/other", "c2/hello"}},
		"a cluster set": {target: target{ClusterSet: "prod"},
			wantOut:  "addon hello disabled on cluster c1\naddon hello disabled on cluster c2\n",
			wantLeft: []string{"c1/other"}},
		"all clusters": {target: target{AllClusters: true},
			wantOut:  "addon hello disabled on cluster c1\naddon hello disabled on cluster c2\n",
			wantLeft: []string{"c1/other"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fakeHub(t, base()...)
			hub, out := hubOpts(c)
			o := &DisableOptions{Out: out, Hub: hub, Addons: []string{"hello"}, target: tc.target}
			if err := o.Validate(); err != nil {
				t.Fatal(err)
			}
			if err := o.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			if out.String() != tc.wantOut {
				t.Errorf("printed %q, want %q", out.String(), tc.wantOut)
			}
			list := &addonv1alpha1.ManagedClusterAddOnList{}
			if err := c.List(context.Background(), list); err != nil {
				t.Fatal(err)
			}
			var left []string
			for _, a := range list.Items {
				left = append(left, a.Namespace+"/"+a.Name)
			}
			sort.Strings(left)
			if d := cmp.Diff(tc.wantLeft, left); d != "" {
				t.Errorf("left enabled (-want +got):\n%s", d)
			}
		})
	}
}

func TestDisableNothingEnabled(t *testing.T) {
	hub, out := hubOpts(fakeHub(t))
	o := &DisableOptions{Out: out, Hub: hub, Addons: []string{"hello"}, target: target{AllClusters: true}}
	if err := o.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := "addon hello is not enabled on any cluster\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
}

// TestDisableRefusedByInstallStrategy: an addon its Placements strategy
// places on a cluster is not disabled there (the hub would install it
// again); nothing is disabled, not even on the clusters it could be.
func TestDisableRefusedByInstallStrategy(t *testing.T) {
	placed := cma("hello")
	placed.Spec.InstallStrategy = addonv1alpha1.InstallStrategy{Type: addonv1alpha1.AddonInstallStrategyPlacements,
		Placements: []addonv1alpha1.PlacementStrategy{{PlacementRef: addonv1alpha1.PlacementRef{Namespace: "addons", Name: "hello"}}}}
	leaving := acceptedCluster("c3")
	leaving.Finalizers, leaving.DeletionTimestamp = []string{"test"}, &metav1.Time{Time: time.Now()}
	objs := []client.Object{placed, acceptedCluster("c1"), acceptedCluster("c2"), leaving, builder.AddOn("c1", "hello").Obj(), builder.AddOn("c2", "hello").Obj(),
		&clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: "addons", Name: "hello"}},
		&clusterv1beta1.PlacementDecision{
			ObjectMeta: metav1.ObjectMeta{Namespace: "addons", Name: "hello-decision-0", Labels: map[string]string{clusterv1beta1.PlacementLabel: "hello"}},
			Status:     clusterv1beta1.PlacementDecisionStatus{Decisions: []clusterv1beta1.ClusterDecision{{ClusterName: "c2"}, {ClusterName: "c3"}}},
		},
	}
	cases := map[string]struct {
		target      target
		selfManaged bool
		wantErr     string
		wantOut     string
	}{
		"a cluster its placement decides on": {target: target{Clusters: []string{"c1", "c2"}},
			wantErr: `addon hello is installed on c2 by its install strategy (placement addons/hello), which would install it again: take the clusters out of the placement, or stop the strategy (for every cluster) first with kubectl patch clustermanagementaddon hello --type merge -p '{"spec":{"installStrategy":{"type":"Manual"}}}'`},
		"all clusters": {target: target{AllClusters: true},
			wantErr: "addon hello is installed on c2 by its install strategy (placement addons/hello)"},
		"a cluster its placement does not decide on": {target: target{Clusters: []string{"c1"}},
			wantOut: "addon hello disabled on cluster c1\n"},
		"a cluster being deleted, which the strategy lets go": {target: target{Clusters: []string{"c3"}},
			wantOut: "addon hello is not enabled on cluster c3\n"},
		"an addon that runs its own lifecycle": {target: target{Clusters: []string{"c2"}}, selfManaged: true,
			wantOut: "addon hello disabled on cluster c2\n"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fakeHub(t, objs...)
			if tc.selfManaged {
				self := placed.DeepCopy()
				self.Annotations = map[string]string{addonv1alpha1.AddonLifecycleAnnotationKey: addonv1alpha1.AddonLifecycleSelfManageAnnotationValue}
				if err := c.Update(context.Background(), self); err != nil {
					t.Fatal(err)
				}
			}
			hub, out := hubOpts(c)
			o := &DisableOptions{Out: out, Hub: hub, Addons: []string{"hello"}, target: tc.target}
			err := o.Run(context.Background())
			if tc.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if out.Len() != 0 {
					t.Errorf("printed %q, want nothing", out.String())
				}
				list := &addonv1alpha1.ManagedClusterAddOnList{}
				if err := c.List(context.Background(), list); err != nil {
					t.Fatal(err)
				}
				if len(list.Items) != 2 {
					t.Errorf("%d addons left enabled, want both", len(list.Items))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out.String() != tc.wantOut {
				t.Errorf("printed %q, want %q", out.String(), tc.wantOut)
			}
		})
	}
}
