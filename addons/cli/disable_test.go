package cli

import (
	"context"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestDisable(t *testing.T) {
	base := func() []client.Object {
		return []client.Object{clusterSet("prod"), cluster("c1", true), cluster("c2", true),
			mca("hello", "c1"), mca("hello", "c2"), mca("other", "c1")}
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
			o := &DisableOptions{hubOptions: hub, Addons: []string{"hello"}, target: tc.target}
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
	o := &DisableOptions{hubOptions: hub, Addons: []string{"hello"}, target: target{AllClusters: true}}
	if err := o.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := "addon hello is not enabled on any cluster\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
}
