package settings

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"open-cluster-management.io/addon-framework/pkg/utils"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/corral-dev/corral/addons/configmapchannel"
	"github.com/corral-dev/corral/internal/testing/builder"
)

// testSettings are a test addon's: one interval, variable "interval".
type testSettings struct {
	Interval metav1.Duration `json:"interval"`
}

const defaultInterval = 30 * time.Second

var testAddon = Addon[testSettings]{
	Name:       "test",
	ConfigName: "test-config",
	Parse: func(vars []addonv1alpha1.CustomizedVariable) (testSettings, error) {
		s := testSettings{Interval: metav1.Duration{Duration: defaultInterval}}
		for _, v := range vars {
			d, err := time.ParseDuration(v.Value)
			if v.Name != "interval" || err != nil || d <= 0 {
				return s, fmt.Errorf("%s %q is not a positive interval", v.Name, v.Value)
			}
			s.Interval.Duration = d
		}
		return s, nil
	},
	Defaults: func() testSettings { return testSettings{Interval: metav1.Duration{Duration: defaultInterval}} },
	Describe: func(s testSettings) string { return "every " + s.Interval.Duration.String() },
}

func addonWithConfig(addon, ns, name string) *addonv1alpha1.ManagedClusterAddOn {
	b := builder.AddOn("c1", addon)
	if name != "" {
		b.ConfigReference(addonv1alpha1.ConfigReference{
			ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Group: utils.AddOnDeploymentConfigGVR.Group, Resource: utils.AddOnDeploymentConfigGVR.Resource},
			DesiredConfig:       &addonv1alpha1.ConfigSpecHash{ConfigReferent: addonv1alpha1.ConfigReferent{Namespace: ns, Name: name}},
		})
	}
	return b.Obj()
}

func config(interval string) *addonv1alpha1.AddOnDeploymentConfig {
	return &addonv1alpha1.AddOnDeploymentConfig{
		ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: "test"},
		Spec:       addonv1alpha1.AddOnDeploymentConfigSpec{CustomizedVariables: []addonv1alpha1.CustomizedVariable{{Name: "interval", Value: interval}}},
	}
}

func newClient(t *testing.T, objs ...client.Object) client.Client {
	t.Helper()
	s := runtime.NewScheme()
	if err := addonv1alpha1.Install(s); err != nil {
		t.Fatal(err)
	}
	return fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).WithStatusSubresource(&addonv1alpha1.ManagedClusterAddOn{}).Build()
}

func TestReconcile(t *testing.T) {
	cases := map[string]struct {
		objs []client.Object
		// stored are the last valid settings, written before.
		stored       *testSettings
		wantStatus   metav1.ConditionStatus
		wantReason   string
		wantMessage  string
		wantInterval time.Duration // 0: no settings written
	}{
		"no config: the defaults": {
			objs:       []client.Object{addonWithConfig("test", "", "")},
			wantStatus: metav1.ConditionTrue, wantReason: ReasonConfigValid, wantMessage: "every 30s", wantInterval: defaultInterval,
		},
		"a valid config": {
			objs:       []client.Object{addonWithConfig("test", "c1", "test"), config("5s")},
			wantStatus: metav1.ConditionTrue, wantReason: ReasonConfigValid, wantMessage: "every 5s", wantInterval: 5 * time.Second,
		},
		"an invalid config is rejected, and nothing written": {
			objs:       []client.Object{addonWithConfig("test", "c1", "test"), config("-5s")},
			wantStatus: metav1.ConditionFalse, wantReason: ReasonConfigInvalid,
			wantMessage: `AddOnDeploymentConfig c1/test is not valid, keeping the last valid settings: interval "-5s" is not a positive interval`,
		},
		"an invalid config leaves the last valid settings": {
			objs:       []client.Object{addonWithConfig("test", "c1", "test"), config("often")},
			stored:     &testSettings{Interval: metav1.Duration{Duration: 7 * time.Second}},
			wantStatus: metav1.ConditionFalse, wantReason: ReasonConfigInvalid, wantMessage: `interval "often"`, wantInterval: 7 * time.Second,
		},
		"a missing config": {
			objs:       []client.Object{addonWithConfig("test", "c1", "nope")},
			wantStatus: metav1.ConditionFalse, wantReason: ReasonConfigNotFound,
			wantMessage: "AddOnDeploymentConfig c1/nope does not exist: create it or remove it from the addon's configs",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := newClient(t, tc.objs...)
			kube := kubefake.NewClientset()
			ctx := context.Background()
			if tc.stored != nil {
				if err := configmapchannel.Write(ctx, kube, "c1", testAddon.ConfigName, testAddon.Name, tc.stored); err != nil {
					t.Fatal(err)
				}
			}
			r := &Reconciler[testSettings]{Client: c, Kube: kube, Addon: testAddon}
			key := types.NamespacedName{Namespace: "c1", Name: testAddon.Name}
			if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: key}); err != nil {
				t.Fatal(err)
			}
			mca := &addonv1alpha1.ManagedClusterAddOn{}
			if err := c.Get(ctx, key, mca); err != nil {
				t.Fatal(err)
			}
			cond := meta.FindStatusCondition(mca.Status.Conditions, ConditionConfigValid)
			if cond == nil || cond.Status != tc.wantStatus || cond.Reason != tc.wantReason || !strings.Contains(cond.Message, tc.wantMessage) {
				t.Errorf("condition %+v, want %s %s saying %q", cond, tc.wantStatus, tc.wantReason, tc.wantMessage)
			}
			var got testSettings
			found, err := configmapchannel.Read(ctx, kube, "c1", testAddon.ConfigName, &got)
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantInterval == 0 {
				if found {
					t.Errorf("settings written from an invalid config: %+v", got)
				}
				return
			}
			if !found || got.Interval.Duration != tc.wantInterval {
				t.Errorf("settings %+v (found %t), want interval %s", got, found, tc.wantInterval)
			}
		})
	}
}

// TestAddonsUsing checks a config maps to the addons of this controller's
// addon whose desired config it is, and to no other addon's.
func TestAddonsUsing(t *testing.T) {
	other := addonWithConfig("other", "c1", "test")
	other.Namespace = "c2"
	c := newClient(t, addonWithConfig("test", "c1", "test"), other)
	r := &Reconciler[testSettings]{Client: c, Addon: testAddon}
	got := r.addonsUsing(context.Background(), config("5s"))
	want := []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: "c1", Name: "test"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

func TestValidate(t *testing.T) {
	if err := testAddon.Validate(config("5s").Spec); err != nil {
		t.Errorf("a valid config refused: %v", err)
	}
	if err := testAddon.Validate(config("-1s").Spec); err == nil {
		t.Error("an invalid config accepted")
	}
}

// TestReconcileDisabledAddonForgetsItsSettings checks that once the
// addon's ManagedClusterAddOn is gone its settings ConfigMap goes too,
// and nothing else: another addon's settings, or the same addon's on
// another cluster, stay.
func TestReconcileDisabledAddonForgetsItsSettings(t *testing.T) {
	ctx := context.Background()
	kube := kubefake.NewClientset()
	for _, w := range []struct{ ns, name string }{{"c1", testAddon.ConfigName}, {"c1", "other-config"}, {"c2", testAddon.ConfigName}} {
		if err := configmapchannel.Write(ctx, kube, w.ns, w.name, testAddon.Name, testAddon.Defaults()); err != nil {
			t.Fatal(err)
		}
	}
	r := &Reconciler[testSettings]{Client: newClient(t), Kube: kube, Addon: testAddon}
	key := types.NamespacedName{Namespace: "c1", Name: testAddon.Name}
	for range 2 { // again once it is gone: nothing to do, no error
		if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: key}); err != nil {
			t.Fatal(err)
		}
	}
	for _, w := range []struct {
		ns, name string
		want     bool
	}{{"c1", testAddon.ConfigName, false}, {"c1", "other-config", true}, {"c2", testAddon.ConfigName, true}} {
		var s testSettings
		found, err := configmapchannel.Read(ctx, kube, w.ns, w.name, &s)
		if err != nil {
			t.Fatal(err)
		}
		if found != w.want {
			t.Errorf("ConfigMap %s/%s exists: %t, want %t", w.ns, w.name, found, w.want)
		}
	}
}

// TestAddonOf checks the addon's settings ConfigMap maps to the addon in
// its namespace, and its other reports to nothing.
func TestAddonOf(t *testing.T) {
	r := &Reconciler[testSettings]{Addon: testAddon}
	settings := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: testAddon.ConfigName}}
	want := []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: "c1", Name: testAddon.Name}}}
	if diff := cmp.Diff(want, r.addonOf(context.Background(), settings)); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	other := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: "test-report"}}
	if got := r.addonOf(context.Background(), other); len(got) != 0 {
		t.Errorf("a report mapped to %v, want nothing", got)
	}
}
