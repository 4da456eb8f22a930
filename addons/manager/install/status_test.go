package install

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
)

var (
	adc  = addonv1alpha1.ConfigGroupResource{Group: addonv1alpha1.GroupName, Resource: "addondeploymentconfigs"}
	cm   = addonv1alpha1.ConfigGroupResource{Resource: "configmaps"}
	defA = addonv1alpha1.ConfigReferent{Namespace: "ns", Name: "default"}
	ownA = addonv1alpha1.ConfigReferent{Namespace: "ns", Name: "placement-own"}
)

func TestPlacementConfigs(t *testing.T) {
	supported := []addonv1alpha1.ConfigMeta{{ConfigGroupResource: adc, DefaultConfig: &defA}, {ConfigGroupResource: cm}}
	cases := map[string]struct {
		placement []addonv1alpha1.AddOnConfig
		want      []addonv1alpha1.AddOnConfig
	}{
		"defaults only": {want: []addonv1alpha1.AddOnConfig{{ConfigGroupResource: adc, ConfigReferent: defA}}},
		"the placement's replaces the default of its type": {
			placement: []addonv1alpha1.AddOnConfig{{ConfigGroupResource: adc, ConfigReferent: ownA}},
			want:      []addonv1alpha1.AddOnConfig{{ConfigGroupResource: adc, ConfigReferent: ownA}},
		},
		"the placement's of a type with no default is added": {
			placement: []addonv1alpha1.AddOnConfig{{ConfigGroupResource: cm, ConfigReferent: ownA}},
			want:      []addonv1alpha1.AddOnConfig{{ConfigGroupResource: adc, ConfigReferent: defA}, {ConfigGroupResource: cm, ConfigReferent: ownA}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, PlacementConfigs(supported, tc.placement)); diff != "" {
				t.Errorf("PlacementConfigs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestInstallProgressions(t *testing.T) {
	ref := addonv1alpha1.PlacementRef{Namespace: "ns", Name: "p"}
	cma := &addonv1alpha1.ClusterManagementAddOn{Spec: addonv1alpha1.ClusterManagementAddOnSpec{
		SupportedConfigs: []addonv1alpha1.ConfigMeta{{ConfigGroupResource: adc, DefaultConfig: &defA}},
		InstallStrategy: addonv1alpha1.InstallStrategy{Type: addonv1alpha1.AddonInstallStrategyPlacements,
			Placements: []addonv1alpha1.PlacementStrategy{{PlacementRef: ref}}},
	}}
	known := []addonv1alpha1.InstallProgression{{
		PlacementRef: ref,
		ConfigReferences: []addonv1alpha1.InstallConfigReference{{
			ConfigGroupResource: adc, DesiredConfig: &addonv1alpha1.ConfigSpecHash{ConfigReferent: defA, SpecHash: "h1"},
			LastAppliedConfig:   &addonv1alpha1.ConfigSpecHash{ConfigReferent: defA, SpecHash: "h1"},
			LastKnownGoodConfig: &addonv1alpha1.ConfigSpecHash{ConfigReferent: defA, SpecHash: "h1"},
		}},
		Conditions: []metav1.Condition{{Type: "Progressing", Status: metav1.ConditionFalse, Reason: "Completed"}},
	}}
	got := InstallProgressions(cma, known)
	if diff := cmp.Diff(known, got); diff != "" {
		t.Errorf("a known progression is kept (-want +got):\n%s", diff)
	}

	cma.Spec.InstallStrategy.Placements[0].Configs = []addonv1alpha1.AddOnConfig{{ConfigGroupResource: adc, ConfigReferent: ownA}}
	got = InstallProgressions(cma, known)
	want := []addonv1alpha1.InstallProgression{{
		PlacementRef: ref,
		ConfigReferences: []addonv1alpha1.InstallConfigReference{{
			ConfigGroupResource: adc, DesiredConfig: &addonv1alpha1.ConfigSpecHash{ConfigReferent: ownA},
			LastAppliedConfig: known[0].ConfigReferences[0].LastAppliedConfig, LastKnownGoodConfig: known[0].ConfigReferences[0].LastKnownGoodConfig,
		}},
		Conditions: known[0].Conditions,
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("a changed config loses its hash, not what was applied before (-want +got):\n%s", diff)
	}

	cma.Spec.InstallStrategy.Type = addonv1alpha1.AddonInstallStrategyManual
	if got := InstallProgressions(cma, known); got != nil {
		t.Errorf("Manual has progressions: %+v", got)
	}
}

func TestDefaultConfigReferences(t *testing.T) {
	supported := []addonv1alpha1.ConfigMeta{{ConfigGroupResource: adc, DefaultConfig: &defA}, {ConfigGroupResource: cm}}
	existing := []addonv1alpha1.DefaultConfigReference{{ConfigGroupResource: adc, DesiredConfig: &addonv1alpha1.ConfigSpecHash{ConfigReferent: defA, SpecHash: "h"}}}
	if diff := cmp.Diff(existing, DefaultConfigReferences(supported, existing)); diff != "" {
		t.Errorf("DefaultConfigReferences (-want +got):\n%s", diff)
	}
}
