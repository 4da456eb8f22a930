package fleet

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/internal/testing/builder"
)

func testAddon(name string) addons.Addon {
	return addons.Addon{Name: name, RunAgent: func(context.Context, addons.AgentEnv) error { return nil }}
}

func TestSelectAddons(t *testing.T) {
	known := []addons.Addon{testAddon("work"), testAddon("placement")}
	cases := map[string]struct {
		known   []addons.Addon
		names   []string
		want    []string
		wantErr string
	}{
		"none named: all":          {known: known, want: []string{"work", "placement"}},
		"named, in known order":    {known: known, names: []string{"placement"}, want: []string{"placement"}},
		"unknown":                  {known: known, names: []string{"work", "helth"}, wantErr: `--addons: unknown addon "helth": the built-in addons are work, placement`},
		"no built-ins yet":         {names: []string{"work"}, wantErr: "--addons: unknown addon \"work\": this corral has no built-in addons"},
		"no built-ins, none named": {want: []string{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := SelectAddons(tc.known, tc.names)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, addons.Names(got)); d != "" {
				t.Errorf("picked (-want +got):\n%s", d)
			}
		})
	}
}

func acceptedCluster(name string) *clusterv1.ManagedCluster {
	return builder.Cluster(name).Accepted().
		Condition(metav1.Condition{Type: clusterv1.ManagedClusterConditionHubAccepted, Status: metav1.ConditionTrue, Reason: "Accepted"}).Obj()
}

func TestEnableAddons(t *testing.T) {
	scheme, err := hubclient.Scheme()
	if err != nil {
		t.Fatal(err)
	}
	work := &addonv1alpha1.ClusterManagementAddOn{ObjectMeta: metav1.ObjectMeta{Name: "work"}}
	cases := map[string]struct {
		objs    []client.Object
		wantErr string
		want    []string
	}{
		"the hub knows the addon": {objs: []client.Object{work, acceptedCluster("cluster1"), acceptedCluster("cluster2")},
			want: []string{"cluster1/work", "cluster2/work"}},
		"the addon manager never creates it": {objs: []client.Object{acceptedCluster("cluster1"), acceptedCluster("cluster2")},
			wantErr: "waited 200ms for the hub's addon manager: unknown addon: the hub has no addon work"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(tc.objs...).Build()
			progress := &bytes.Buffer{}
			err := enableAddons(context.Background(), c, []string{"cluster1", "cluster2"}, []addons.Addon{testAddon("work")}, 200*time.Millisecond, progress)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			list := &addonv1alpha1.ManagedClusterAddOnList{}
			if err := c.List(context.Background(), list); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range list.Items {
				got = append(got, a.Namespace+"/"+a.Name)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("enabled (-want +got):\n%s", d)
			}
			if tc.wantErr == "" && !strings.Contains(progress.String(), "cluster2: addon work enabled") {
				t.Errorf("progress %q does not say what was enabled", progress.String())
			}
		})
	}
}

func TestWaitAddonsAvailableWaitsForEveryAgentAddonOnEveryCluster(t *testing.T) {
	scheme, err := hubclient.Scheme()
	if err != nil {
		t.Fatal(err)
	}
	addon := func(cluster, name string, available metav1.ConditionStatus) *addonv1alpha1.ManagedClusterAddOn {
		a := &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: name}}
		a.Status.Conditions = []metav1.Condition{{Type: addonv1alpha1.ManagedClusterAddOnConditionAvailable, Status: available, Reason: "Test"}}
		return a
	}
	selected := []addons.Addon{testAddon("work"), {Name: "propagation", SetupHub: func(ctrl.Manager, addons.HubEnv) error { return nil }}}
	ctx := context.Background()

	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(
		addon("cluster1", "work", metav1.ConditionTrue), addon("cluster2", "work", metav1.ConditionUnknown)).Build()
	var progress bytes.Buffer
	err = waitAddonsAvailable(ctx, c, []string{"cluster1", "cluster2"}, selected, 1500*time.Millisecond, &progress)
	if err == nil || !strings.Contains(err.Error(), "cluster2/work") || strings.Contains(err.Error(), "cluster1") {
		t.Errorf("waitAddonsAvailable with cluster2's work Unknown = %v, want an error naming cluster2/work only", err)
	}

	c = fake.NewClientBuilder().WithScheme(scheme).WithObjects(
		addon("cluster1", "work", metav1.ConditionTrue), addon("cluster2", "work", metav1.ConditionTrue)).Build()
	progress.Reset()
	if err := waitAddonsAvailable(ctx, c, []string{"cluster1", "cluster2"}, selected, time.Minute, &progress); err != nil {
		t.Fatalf("waitAddonsAvailable with all Available = %v", err)
	}
	if !strings.Contains(progress.String(), "addons: 2 of 2 available") {
		t.Errorf("progress = %q, want it to count 2 of 2 (the hub-only addon has no agent to wait for)", progress.String())
	}
}
