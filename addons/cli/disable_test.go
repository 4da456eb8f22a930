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

	"github.com/corral-dev/corral/internal/confirm"
	"github.com/corral-dev/corral/internal/confirm/confirmtest"
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
			o := &DisableOptions{Out: out, Hub: hub, Confirm: confirm.Options{Yes: true}, Addons: []string{"hello"}, target: tc.target}
			if err := o.Validate(); err != nil {
				t.Fatal(err)
			}
			if err := o.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			// What was disabled is said after what would stop was shown.
			if !strings.HasSuffix(out.String(), "\n"+tc.wantOut) {
				t.Errorf("printed %q, want it to end with %q", out.String(), tc.wantOut)
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
			o := &DisableOptions{Out: out, Hub: hub, Confirm: confirm.Options{Yes: true}, Addons: []string{"hello"}, target: tc.target}
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
			if !strings.HasSuffix(out.String(), tc.wantOut) {
				t.Errorf("printed %q, want it to end with %q", out.String(), tc.wantOut)
			}
		})
	}
}

// TestDisableAsks: disable shows the agents that stop and, for the work
// addon, the live works no longer applied; it refuses off a terminal
// without --yes and with --dry-run writes nothing; it goes ahead with
// --yes or a person's y; and asks nothing when nothing is enabled.
func TestDisableAsks(t *testing.T) {
	objs := func() []client.Object {
		return []client.Object{acceptedCluster("c1"), acceptedCluster("c2"),
			builder.AddOn("c1", "work").Obj(), builder.AddOn("c1", "hello").Obj(),
			builder.Work("c1", "web").Obj(), builder.Work("c1", "db").Obj(),
			builder.Work("c1", "gone").Finalizer("test").Deleting(time.Now()).Obj(), builder.Work("c2", "other").Obj()}
	}
	workLines := []string{
		"  - c1: addon work's agent is removed and its hub credentials revoked",
		"  - c1: ManifestWork db is no longer applied or updated there (what it applied stays)",
		"  - c1: ManifestWork web is no longer applied or updated there (what it applied stays)",
	}
	cases := map[string]struct {
		addon    string
		clusters []string
		conf     confirm.Options
		wantErr  string
		wantOut  []string
		notOut   []string
		disabled bool
	}{
		"work, off a terminal: refused, naming --yes": {addon: "work", clusters: []string{"c1"}, conf: confirm.Options{},
			wantErr: "pass --yes", wantOut: workLines, notOut: []string{"gone", "other"}},
		"work, dry run": {addon: "work", clusters: []string{"c1"}, conf: confirm.Options{DryRun: true},
			wantOut: append(workLines, "dry run: nothing was changed")},
		"work, --yes": {addon: "work", clusters: []string{"c1"}, conf: confirm.Options{Yes: true},
			wantOut: append(workLines, "addon work disabled on cluster c1"), disabled: true},
		"hello, a person answering y": {addon: "hello", clusters: []string{"c1"},
			conf:    confirm.Options{Terminal: true, In: strings.NewReader("y\n")},
			wantOut: []string{"  - c1: addon hello's agent is removed", "Disable addon hello on cluster c1? [y/N] ", "addon hello disabled on cluster c1"},
			notOut:  []string{"ManifestWork"}, disabled: true},
		"hello, a person answering n": {addon: "hello", clusters: []string{"c1"},
			conf:    confirm.Options{Terminal: true, In: strings.NewReader("n\n")},
			wantOut: []string{"nothing was changed"}},
		"nothing enabled: nothing asked": {addon: "hello", clusters: []string{"c2"}, conf: confirm.Options{},
			wantOut: []string{"addon hello is not enabled on cluster c2\n"}, notOut: []string{"This removes"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fakeHub(t, objs()...)
			before := enabledAddons(t, c)
			hub, out := hubOpts(c)
			o := &DisableOptions{Out: out, Hub: hub, Confirm: tc.conf, Addons: []string{tc.addon}, target: target{Clusters: tc.clusters}}
			err := o.Run(t.Context())
			confirmtest.Expect(t, err, out.String(), tc.wantErr, tc.wantOut, tc.notOut)
			after := enabledAddons(t, c)
			if disabled := cmp.Diff(before, after) != ""; disabled != tc.disabled {
				t.Errorf("disabled = %v, want %v (-before +after):\n%s", disabled, tc.disabled, cmp.Diff(before, after))
			}
		})
	}
}

// enabledAddons are the hub's ManagedClusterAddOns, with their
// resourceVersions: equal lists mean nothing was written.
func enabledAddons(t *testing.T, c client.Client) []string {
	t.Helper()
	list := &addonv1alpha1.ManagedClusterAddOnList{}
	if err := c.List(t.Context(), list); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range list.Items {
		out = append(out, a.Namespace+"/"+a.Name+"@"+a.ResourceVersion)
	}
	sort.Strings(out)
	return out
}
