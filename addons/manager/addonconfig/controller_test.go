package addonconfig

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
)

var (
	adc = addonv1alpha1.ConfigGroupResource{Group: addonv1alpha1.GroupName, Resource: "addondeploymentconfigs"}
	cm  = addonv1alpha1.ConfigGroupResource{Resource: "configmaps"}
)

func config(gr addonv1alpha1.ConfigGroupResource, name string) addonv1alpha1.AddOnConfig {
	return addonv1alpha1.AddOnConfig{ConfigGroupResource: gr, ConfigReferent: addonv1alpha1.ConfigReferent{Namespace: "ns", Name: name}}
}

func TestOverride(t *testing.T) {
	cases := map[string]struct {
		base, over, want []addonv1alpha1.AddOnConfig
	}{
		"nothing over":            {base: []addonv1alpha1.AddOnConfig{config(adc, "d")}, want: []addonv1alpha1.AddOnConfig{config(adc, "d")}},
		"same type replaced":      {base: []addonv1alpha1.AddOnConfig{config(adc, "d")}, over: []addonv1alpha1.AddOnConfig{config(adc, "own")}, want: []addonv1alpha1.AddOnConfig{config(adc, "own")}},
		"other type added":        {base: []addonv1alpha1.AddOnConfig{config(adc, "d")}, over: []addonv1alpha1.AddOnConfig{config(cm, "c")}, want: []addonv1alpha1.AddOnConfig{config(adc, "d"), config(cm, "c")}},
		"duplicates in over once": {over: []addonv1alpha1.AddOnConfig{config(cm, "c"), config(cm, "c")}, want: []addonv1alpha1.AddOnConfig{config(cm, "c")}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Override(tc.base, tc.over)); diff != "" {
				t.Errorf("Override (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConfigReferences(t *testing.T) {
	own := config(adc, "own")
	known := addonv1alpha1.ConfigReference{
		ConfigGroupResource: adc, LastObservedGeneration: 3,
		DesiredConfig:     &addonv1alpha1.ConfigSpecHash{ConfigReferent: own.ConfigReferent, SpecHash: "h"},
		LastAppliedConfig: &addonv1alpha1.ConfigSpecHash{ConfigReferent: own.ConfigReferent, SpecHash: "h0"},
	}
	stale := addonv1alpha1.ConfigReference{ConfigGroupResource: cm, DesiredConfig: &addonv1alpha1.ConfigSpecHash{ConfigReferent: own.ConfigReferent}}
	got := ConfigReferences([]addonv1alpha1.AddOnConfig{own}, []addonv1alpha1.ConfigReference{known, stale})
	want := known
	want.ConfigReferent = own.ConfigReferent
	if diff := cmp.Diff([]addonv1alpha1.ConfigReference{want}, got); diff != "" {
		t.Errorf("a known config keeps its hashes, a stale one goes (-want +got):\n%s", diff)
	}
	got = ConfigReferences([]addonv1alpha1.AddOnConfig{config(adc, "new")}, []addonv1alpha1.ConfigReference{known})
	wantNew := []addonv1alpha1.ConfigReference{{
		ConfigGroupResource: adc, ConfigReferent: addonv1alpha1.ConfigReferent{Namespace: "ns", Name: "new"},
		DesiredConfig: &addonv1alpha1.ConfigSpecHash{ConfigReferent: addonv1alpha1.ConfigReferent{Namespace: "ns", Name: "new"}},
	}}
	if diff := cmp.Diff(wantNew, got); diff != "" {
		t.Errorf("a changed config starts without a hash (-want +got):\n%s", diff)
	}
}
