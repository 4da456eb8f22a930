package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/internal/testing/builder"
)

func TestEnable(t *testing.T) {
	adc := addonv1alpha1.AddOnConfig{
		ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Group: "addon.open-cluster-management.io", Resource: "addondeploymentconfigs"},
		ConfigReferent:      addonv1alpha1.ConfigReferent{Namespace: "c1", Name: "cfg"},
	}
	cases := map[string]struct {
		objs      []client.Object
		opts      func(*EnableOptions)
		wantErr   string
		wantOut   string
		wantAddon map[string]addonv1alpha1.ManagedClusterAddOnSpec // cluster/addon → spec; others must not exist
	}{
		"an AddOnTemplate addon: enabled, with a warning that corral does not render it": {
			objs:      []client.Object{templateCMA("dashboard"), acceptedCluster("c1")},
			opts:      func(o *EnableOptions) { o.Addons, o.Clusters = []string{"dashboard"}, []string{"c1"} },
			wantOut:   "addon dashboard enabled on cluster c1\nWarning: addon dashboard is defined by an AddOnTemplate, which corral does not render: its agent is deployed only if OCM's addon manager runs against this hub.\n",
			wantAddon: map[string]addonv1alpha1.ManagedClusterAddOnSpec{"c1/dashboard": {}},
		},
		"named clusters": {
			objs: []client.Object{cma("hello"), acceptedCluster("c1"), acceptedCluster("c2"),
				&addonv1alpha1.AddOnDeploymentConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: "cfg"}}},
			opts: func(o *EnableOptions) {
				o.Clusters, o.InstallNamespace = []string{"c1", "c2"}, "hello-agent"
				o.ConfigFlags = []string{"addon.open-cluster-management.io/addondeploymentconfigs/c1/cfg"}
			},
			wantOut: "addon hello enabled on cluster c1\naddon hello enabled on cluster c2\n",
			wantAddon: map[string]addonv1alpha1.ManagedClusterAddOnSpec{
				"c1/hello": {InstallNamespace: "hello-agent", Configs: []addonv1alpha1.AddOnConfig{adc}},
				"c2/hello": {InstallNamespace: "hello-agent", Configs: []addonv1alpha1.AddOnConfig{adc}},
			},
		},
		"a config not there yet: enabled, with a note that the addon waits for it": {
			objs: []client.Object{cma("hello"), acceptedCluster("c1")},
			opts: func(o *EnableOptions) {
				o.Clusters, o.ConfigFlags = []string{"c1"}, []string{"addon.open-cluster-management.io/addondeploymentconfigs/c1/cfg"}
			},
			wantOut:   "addon hello enabled on cluster c1\nnote: AddOnDeploymentConfig c1/cfg does not exist yet; the addon waits for it (Progressing) until it does\n",
			wantAddon: map[string]addonv1alpha1.ManagedClusterAddOnSpec{"c1/hello": {Configs: []addonv1alpha1.AddOnConfig{adc}}},
		},
		"a cluster set": {
			objs:      []client.Object{cma("hello"), clusterSet("prod"), acceptedCluster("c1"), acceptedCluster("c2")},
			opts:      func(o *EnableOptions) { o.ClusterSet = "prod" },
			wantOut:   "addon hello enabled on cluster c1\naddon hello enabled on cluster c2\n",
			wantAddon: map[string]addonv1alpha1.ManagedClusterAddOnSpec{"c1/hello": {}, "c2/hello": {}},
		},
		"twice is idempotent": {
			objs:      []client.Object{cma("hello"), acceptedCluster("c1"), builder.AddOn("c1", "hello").Obj()},
			opts:      func(o *EnableOptions) { o.Clusters = []string{"c1"} },
			wantOut:   "addon hello already enabled on cluster c1\n",
			wantAddon: map[string]addonv1alpha1.ManagedClusterAddOnSpec{"c1/hello": {}},
		},
		"again with a namespace updates it": {
			objs:      []client.Object{cma("hello"), acceptedCluster("c1"), builder.AddOn("c1", "hello").Obj()},
			opts:      func(o *EnableOptions) { o.Clusters, o.InstallNamespace = []string{"c1"}, "elsewhere" },
			wantOut:   "addon hello updated on cluster c1\n",
			wantAddon: map[string]addonv1alpha1.ManagedClusterAddOnSpec{"c1/hello": {InstallNamespace: "elsewhere"}},
		},
		"again with --config none removes its configurations": {
			objs: []client.Object{cma("hello"), acceptedCluster("c1"), func() client.Object {
				a := builder.AddOn("c1", "hello").Obj()
				a.Spec.Configs = []addonv1alpha1.AddOnConfig{adc}
				return a
			}()},
			opts:      func(o *EnableOptions) { o.Clusters, o.ConfigFlags = []string{"c1"}, []string{NoConfig} },
			wantOut:   "addon hello updated on cluster c1\n",
			wantAddon: map[string]addonv1alpha1.ManagedClusterAddOnSpec{"c1/hello": {}},
		},
		"--config none on a new one enables it with none": {
			objs:      []client.Object{cma("hello"), acceptedCluster("c1")},
			opts:      func(o *EnableOptions) { o.Clusters, o.ConfigFlags = []string{"c1"}, []string{NoConfig} },
			wantOut:   "addon hello enabled on cluster c1\n",
			wantAddon: map[string]addonv1alpha1.ManagedClusterAddOnSpec{"c1/hello": {}},
		},
		"an unknown addon creates nothing": {
			objs:    []client.Object{cma("hello"), acceptedCluster("c1")},
			opts:    func(o *EnableOptions) { o.Addons, o.Clusters = []string{"hello", "nope"}, []string{"c1"} },
			wantErr: "the hub has no addon nope (no ClusterManagementAddOn; see corral addon list); nothing was enabled",
		},
		"a cluster not accepted creates nothing": {
			objs:    []client.Object{cma("hello"), acceptedCluster("c1"), builder.Cluster("c2").InSet("prod").Obj()},
			opts:    func(o *EnableOptions) { o.Clusters = []string{"c1", "c2"} },
			wantErr: "cluster c2 is not accepted: accept it first (corral accept c2); nothing was enabled",
		},
		"a set with a cluster not accepted creates nothing": {
			objs:    []client.Object{cma("hello"), clusterSet("prod"), acceptedCluster("c1"), builder.Cluster("c2").InSet("prod").Obj()},
			opts:    func(o *EnableOptions) { o.ClusterSet = "prod" },
			wantErr: "cluster c2 is not accepted",
		},
		"a missing cluster creates nothing": {
			objs:    []client.Object{cma("hello"), acceptedCluster("c1")},
			opts:    func(o *EnableOptions) { o.Clusters = []string{"c1", "ghost"} },
			wantErr: "no such cluster on the hub: ghost",
		},
		"a missing set": {
			objs:    []client.Object{cma("hello")},
			opts:    func(o *EnableOptions) { o.ClusterSet = "nope" },
			wantErr: `no cluster set "nope" on the hub`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fakeHub(t, tc.objs...)
			hub, out := hubOpts(c)
			o := &EnableOptions{Out: out, Hub: hub, Addons: []string{"hello"}}
			tc.opts(o)
			if err := o.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			err := o.Run(context.Background())
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if out.String() != tc.wantOut {
				t.Errorf("printed %q, want %q", out.String(), tc.wantOut)
			}
			list := &addonv1alpha1.ManagedClusterAddOnList{}
			if err := c.List(context.Background(), list); err != nil {
				t.Fatal(err)
			}
			got := map[string]addonv1alpha1.ManagedClusterAddOnSpec{}
			for _, a := range list.Items {
				got[a.Namespace+"/"+a.Name] = a.Spec
			}
			want := tc.wantAddon
			if want == nil {
				want = map[string]addonv1alpha1.ManagedClusterAddOnSpec{}
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("ManagedClusterAddOns (-want +got):\n%s", d)
			}
		})
	}
}

func TestEnableValidate(t *testing.T) {
	cases := map[string]struct {
		o       EnableOptions
		wantErr string
	}{
		"no clusters":        {o: EnableOptions{Addons: []string{"hello"}}, wantErr: "give exactly one of --clusters or --clusterset"},
		"clusters and a set": {o: EnableOptions{Addons: []string{"hello"}, target: target{Clusters: []string{"c1"}, ClusterSet: "s"}}, wantErr: "give exactly one"},
		"bad addon name":     {o: EnableOptions{Addons: []string{"Hello"}, target: target{Clusters: []string{"c1"}}}, wantErr: `addon name "Hello" is not valid`},
		"bad namespace":      {o: EnableOptions{Addons: []string{"hello"}, target: target{Clusters: []string{"c1"}}, InstallNamespace: "a_b"}, wantErr: `--namespace "a_b" is not a namespace name`},
		"bad config":         {o: EnableOptions{Addons: []string{"hello"}, target: target{Clusters: []string{"c1"}}, ConfigFlags: []string{"just-a-name"}}, wantErr: `--config "just-a-name" is not group/resource/[namespace/]name`},
		"none with a config": {o: EnableOptions{Addons: []string{"hello"}, target: target{Clusters: []string{"c1"}}, ConfigFlags: []string{"a/b/c/d", NoConfig}},
			wantErr: "--config none removes the addon's configurations, so it cannot be given with others"},
		"a hub-only built-in": {o: EnableOptions{Addons: []string{"hello", "hubonly"}, target: target{Clusters: []string{"c1"}}, Builtins: []addons.Addon{{Name: "hubonly", SetupHub: func(ctrl.Manager, addons.HubEnv) error { return nil }}}},
			wantErr: "addon hubonly runs on the hub alone and serves every cluster from there: there is nothing to enable on a cluster"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := tc.o.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

// TestEnableValidateNoneTwice checks --config none given twice is still
// none, not "given with others".
func TestEnableValidateNoneTwice(t *testing.T) {
	o := EnableOptions{Addons: []string{"hello"}, target: target{Clusters: []string{"c1"}}, ConfigFlags: []string{NoConfig, NoConfig}}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if !o.clearConfigs || len(o.Configs) != 0 {
		t.Errorf("clearConfigs %t, configs %v; want true and none", o.clearConfigs, o.Configs)
	}
}

func TestParseConfig(t *testing.T) {
	cases := map[string]addonv1alpha1.AddOnConfig{
		"g/r/name":            {ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Group: "g", Resource: "r"}, ConfigReferent: addonv1alpha1.ConfigReferent{Name: "name"}},
		"g/r/ns/name":         {ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Group: "g", Resource: "r"}, ConfigReferent: addonv1alpha1.ConfigReferent{Namespace: "ns", Name: "name"}},
		"/configmaps/ns/name": {ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Resource: "configmaps"}, ConfigReferent: addonv1alpha1.ConfigReferent{Namespace: "ns", Name: "name"}},
	}
	for in, want := range cases {
		got, err := ParseConfig(in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", in, d)
		}
	}
	for _, bad := range []string{"g/r", "g/r/", "a/b/c/d/e"} {
		if _, err := ParseConfig(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestWaitForAddons(t *testing.T) {
	c := fakeHub(t, cma("hello"))
	if err := WaitForAddons(context.Background(), c, []string{"hello"}, time.Second); err != nil {
		t.Errorf("a known addon: %v", err)
	}
	err := WaitForAddons(context.Background(), c, []string{"hello", "later"}, 100*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "the hub has no addon later") {
		t.Errorf("a missing addon: %v, want one naming it", err)
	}
}

func TestEnableChecksConfigs(t *testing.T) {
	ref := "addon.open-cluster-management.io/addondeploymentconfigs/c1/cfg"
	adc := func(value string) *addonv1alpha1.AddOnDeploymentConfig {
		return &addonv1alpha1.AddOnDeploymentConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: "cfg"},
			Spec: addonv1alpha1.AddOnDeploymentConfigSpec{CustomizedVariables: []addonv1alpha1.CustomizedVariable{{Name: "interval", Value: value}}}}
	}
	// hello's hub half wants a positive interval; other is an addon of
	// the hub's, not a built-in.
	builtins := []addons.Addon{{Name: "hello", ValidateDeploymentConfig: func(spec addonv1alpha1.AddOnDeploymentConfigSpec) error {
		if v := spec.CustomizedVariables[0].Value; strings.HasPrefix(v, "-") {
			return errors.Join(fmt.Errorf("interval %q is not positive", v), errors.New("and a second problem"))
		}
		return nil
	}}}
	cases := map[string]struct {
		addon   string
		objs    []client.Object
		wantErr string
	}{
		"a valid config": {addon: "hello", objs: []client.Object{adc("5s")}},
		"a bad config creates nothing, in one line naming it and every problem": {addon: "hello", objs: []client.Object{adc("-5s")},
			wantErr: `AddOnDeploymentConfig c1/cfg is not a valid config of addon hello: interval "-5s" is not positive; and a second problem; nothing was enabled`},
		"a config not there yet is the hub's to report": {addon: "hello"},
		"a third-party addon's config is its own":       {addon: "other", objs: []client.Object{adc("-5s")}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fakeHub(t, append(tc.objs, cma(tc.addon), acceptedCluster("c1"))...)
			hub, out := hubOpts(c)
			o := &EnableOptions{Out: out, Hub: hub, Addons: []string{tc.addon}, target: target{Clusters: []string{"c1"}},
				ConfigFlags: []string{ref}, Builtins: builtins}
			if err := o.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			err := o.Run(context.Background())
			list := &addonv1alpha1.ManagedClusterAddOnList{}
			if err := c.List(context.Background(), list); err != nil {
				t.Fatal(err)
			}
			if tc.wantErr == "" {
				if err != nil || len(list.Items) != 1 {
					t.Fatalf("error %v and %d addons, want none and 1", err, len(list.Items))
				}
				return
			}
			if err == nil || err.Error() != tc.wantErr {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
			if len(list.Items) != 0 {
				t.Errorf("%d ManagedClusterAddOns were created, want none", len(list.Items))
			}
		})
	}
}
