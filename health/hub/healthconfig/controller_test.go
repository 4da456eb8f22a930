package healthconfig

import (
	"context"
	"strings"
	"testing"
	"time"

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

	"github.com/corral-dev/corral/addons/report"
	"github.com/corral-dev/corral/health/api"
)

func addonWithConfig(ns, name string) *addonv1alpha1.ManagedClusterAddOn {
	mca := &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: api.AddonName}}
	if name != "" {
		mca.Status.ConfigReferences = []addonv1alpha1.ConfigReference{{
			ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Group: utils.AddOnDeploymentConfigGVR.Group, Resource: utils.AddOnDeploymentConfigGVR.Resource},
			DesiredConfig:       &addonv1alpha1.ConfigSpecHash{ConfigReferent: addonv1alpha1.ConfigReferent{Namespace: ns, Name: name}},
		}}
	}
	return mca
}

func config(interval string) *addonv1alpha1.AddOnDeploymentConfig {
	return &addonv1alpha1.AddOnDeploymentConfig{
		ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: "health"},
		Spec:       addonv1alpha1.AddOnDeploymentConfigSpec{CustomizedVariables: []addonv1alpha1.CustomizedVariable{{Name: api.VarProbeInterval, Value: interval}}},
	}
}

func TestReconcile(t *testing.T) {
	cases := map[string]struct {
		objs         []client.Object
		wantStatus   metav1.ConditionStatus
		wantReason   string
		wantMessage  string
		wantInterval time.Duration // 0: no settings written
	}{
		"no config: the defaults": {
			objs:       []client.Object{addonWithConfig("", "")},
			wantStatus: metav1.ConditionTrue, wantReason: ReasonConfigValid, wantInterval: api.DefaultProbeInterval,
		},
		"a valid config": {
			objs:       []client.Object{addonWithConfig("c1", "health"), config("5s")},
			wantStatus: metav1.ConditionTrue, wantReason: ReasonConfigValid, wantMessage: "probing every 5s", wantInterval: 5 * time.Second,
		},
		"a negative interval is rejected": {
			objs:       []client.Object{addonWithConfig("c1", "health"), config("-5s")},
			wantStatus: metav1.ConditionFalse, wantReason: ReasonConfigInvalid, wantMessage: `AddOnDeploymentConfig c1/health is not valid, keeping the last valid settings: probeInterval "-5s" is not a positive duration`,
		},
		"a missing config": {
			objs:       []client.Object{addonWithConfig("c1", "nope")},
			wantStatus: metav1.ConditionFalse, wantReason: ReasonConfigNotFound, wantMessage: "c1/nope does not exist",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := runtime.NewScheme()
			if err := addonv1alpha1.Install(s); err != nil {
				t.Fatal(err)
			}
			c := fake.NewClientBuilder().WithScheme(s).WithObjects(tc.objs...).WithStatusSubresource(&addonv1alpha1.ManagedClusterAddOn{}).Build()
			kube := kubefake.NewClientset()
			r := &Reconciler{Client: c, Kube: kube}
			ctx := context.Background()
			if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: "c1", Name: api.AddonName}}); err != nil {
				t.Fatal(err)
			}
			mca := &addonv1alpha1.ManagedClusterAddOn{}
			if err := c.Get(ctx, types.NamespacedName{Namespace: "c1", Name: api.AddonName}, mca); err != nil {
				t.Fatal(err)
			}
			cond := meta.FindStatusCondition(mca.Status.Conditions, ConditionConfigValid)
			if cond == nil || cond.Status != tc.wantStatus || cond.Reason != tc.wantReason || !strings.Contains(cond.Message, tc.wantMessage) {
				t.Errorf("condition %+v, want %s %s saying %q", cond, tc.wantStatus, tc.wantReason, tc.wantMessage)
			}
			var settings api.Settings
			found, err := report.Read(ctx, kube, "c1", api.ConfigName, &settings)
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantInterval == 0 {
				if found {
					t.Errorf("settings written from an invalid config: %+v", settings)
				}
				return
			}
			if !found || settings.ProbeInterval.Duration != tc.wantInterval {
				t.Errorf("settings %+v (found %t), want interval %s", settings, found, tc.wantInterval)
			}
		})
	}
}
