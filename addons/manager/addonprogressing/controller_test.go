package addonprogressing

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
)

func TestSetProgressing(t *testing.T) {
	adc := addonv1alpha1.ConfigGroupResource{Group: addonv1alpha1.GroupName, Resource: "addondeploymentconfigs"}
	referent := addonv1alpha1.ConfigReferent{Namespace: "ns", Name: "c"}
	cases := map[string]struct {
		configs    []addonv1alpha1.AddOnConfig
		refs       []addonv1alpha1.ConfigReference
		wantStatus metav1.ConditionStatus
		wantReason string
		wantLast   bool
	}{
		"no configs": {wantStatus: metav1.ConditionFalse, wantReason: addonv1alpha1.ProgressingReasonCompleted},
		"a config without its hash yet": {
			refs:       []addonv1alpha1.ConfigReference{{ConfigGroupResource: adc, DesiredConfig: &addonv1alpha1.ConfigSpecHash{ConfigReferent: referent}}},
			wantStatus: metav1.ConditionTrue, wantReason: addonv1alpha1.ProgressingReasonProgressing,
		},
		"every config hashed": {
			refs:       []addonv1alpha1.ConfigReference{{ConfigGroupResource: adc, DesiredConfig: &addonv1alpha1.ConfigSpecHash{ConfigReferent: referent, SpecHash: "h"}}},
			wantStatus: metav1.ConditionFalse, wantReason: addonv1alpha1.ProgressingReasonCompleted, wantLast: true,
		},
		"an unsupported config type": {
			configs:    []addonv1alpha1.AddOnConfig{{ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Resource: "configmaps"}, ConfigReferent: referent}},
			wantStatus: metav1.ConditionFalse, wantReason: addonv1alpha1.ProgressingReasonConfigurationUnsupported,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			mca := &addonv1alpha1.ManagedClusterAddOn{
				Spec:   addonv1alpha1.ManagedClusterAddOnSpec{Configs: tc.configs},
				Status: addonv1alpha1.ManagedClusterAddOnStatus{ConfigReferences: tc.refs},
			}
			SetProgressing(mca, []addonv1alpha1.ConfigGroupResource{adc})
			cond := meta.FindStatusCondition(mca.Status.Conditions, addonv1alpha1.ManagedClusterAddOnConditionProgressing)
			if cond == nil || cond.Status != tc.wantStatus || cond.Reason != tc.wantReason {
				t.Fatalf("Progressing = %+v, want %s %s", cond, tc.wantStatus, tc.wantReason)
			}
			for _, ref := range mca.Status.ConfigReferences {
				if got := ref.LastAppliedConfig != nil && *ref.LastAppliedConfig == *ref.DesiredConfig; got != tc.wantLast {
					t.Errorf("last applied = %+v, want it the desired one: %t", ref.LastAppliedConfig, tc.wantLast)
				}
			}
		})
	}
}
