package addonconfig

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	rolloutsdk "open-cluster-management.io/sdk-go/pkg/apis/cluster/v1alpha1"
)

var (
	adc = addonv1alpha1.ConfigGroupResource{Group: addonv1alpha1.GroupName, Resource: "addondeploymentconfigs"}
	cm  = addonv1alpha1.ConfigGroupResource{Resource: "configmaps"}
)

// cfg is the config ns/name of group and resource gr, with hash.
func cfg(gr addonv1alpha1.ConfigGroupResource, name, hash string) config {
	return config{gr, addonv1alpha1.ConfigSpecHash{ConfigReferent: addonv1alpha1.ConfigReferent{Namespace: "ns", Name: name}, SpecHash: hash}}
}

func TestOverride(t *testing.T) {
	cases := map[string]struct {
		base, over, want configs
	}{
		"nothing over":            {base: configs{cfg(adc, "d", "")}, want: configs{cfg(adc, "d", "")}},
		"same type replaced":      {base: configs{cfg(adc, "d", "h")}, over: configs{cfg(adc, "own", "")}, want: configs{cfg(adc, "own", "")}},
		"other type added":        {base: configs{cfg(adc, "d", "")}, over: configs{cfg(cm, "c", "")}, want: configs{cfg(adc, "d", ""), cfg(cm, "c", "")}},
		"duplicates in over once": {over: configs{cfg(cm, "c", ""), cfg(cm, "c", "")}, want: configs{cfg(cm, "c", "")}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Override(tc.base, tc.over)); diff != "" {
				t.Errorf("Override (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOwnConfigsKeepTheFrameworksHash(t *testing.T) {
	mca := &addonv1alpha1.ManagedClusterAddOn{
		Spec: addonv1alpha1.ManagedClusterAddOnSpec{Configs: []addonv1alpha1.AddOnConfig{
			{ConfigGroupResource: adc, ConfigReferent: addonv1alpha1.ConfigReferent{Namespace: "ns", Name: "mine"}},
			{ConfigGroupResource: cm, ConfigReferent: addonv1alpha1.ConfigReferent{Namespace: "ns", Name: "new"}},
		}},
		Status: addonv1alpha1.ManagedClusterAddOnStatus{ConfigReferences: []addonv1alpha1.ConfigReference{
			ref(cfg(adc, "mine", "h1"), nil),
			ref(cfg(cm, "old", "h2"), nil),
		}},
	}
	if diff := cmp.Diff(configs{cfg(adc, "mine", "h1"), cfg(cm, "new", "")}, own(mca)); diff != "" {
		t.Errorf("own (-want +got):\n%s", diff)
	}
}

// ref is a config reference desiring c, last applied as applied.
func ref(c config, applied *config) addonv1alpha1.ConfigReference {
	r := addonv1alpha1.ConfigReference{ConfigGroupResource: c.ConfigGroupResource, ConfigReferent: c.ConfigReferent, DesiredConfig: c.ConfigSpecHash.DeepCopy()}
	if applied != nil {
		r.LastAppliedConfig = applied.ConfigSpecHash.DeepCopy()
	}
	return r
}

func TestConfigReferences(t *testing.T) {
	old, now := cfg(adc, "own", "h0"), cfg(adc, "own", "h1")
	known := ref(old, &old)
	known.LastObservedGeneration = 3
	stale := ref(cfg(cm, "gone", ""), nil)
	want := known
	want.DesiredConfig = now.ConfigSpecHash.DeepCopy()
	if diff := cmp.Diff([]addonv1alpha1.ConfigReference{want}, ConfigReferences(configs{now}, []addonv1alpha1.ConfigReference{known, stale})); diff != "" {
		t.Errorf("a config that stays keeps what is known of it and takes the new hash; a stale one goes (-want +got):\n%s", diff)
	}
	other := cfg(adc, "other", "")
	if diff := cmp.Diff([]addonv1alpha1.ConfigReference{ref(other, nil)}, ConfigReferences(configs{other}, []addonv1alpha1.ConfigReference{known})); diff != "" {
		t.Errorf("another config starts afresh (-want +got):\n%s", diff)
	}
}

func TestRolloutStatus(t *testing.T) {
	since := metav1.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)
	h1, h2 := cfg(adc, "c", "h1"), cfg(adc, "c", "h2")
	progressing := func(reason string) *metav1.Condition {
		return &metav1.Condition{Type: addonv1alpha1.ManagedClusterAddOnConditionProgressing, Status: metav1.ConditionTrue, Reason: reason, LastTransitionTime: since}
	}
	cases := map[string]struct {
		want       configs
		refs       []addonv1alpha1.ConfigReference
		configured bool
		cond       *metav1.Condition
		wantStatus rolloutsdk.RolloutStatus
		// wantSince says the status counts from the condition's time.
		wantSince bool
	}{
		"nothing written yet":                {want: configs{h1}, wantStatus: rolloutsdk.ToApply},
		"another hash desired":               {want: configs{h1}, refs: []addonv1alpha1.ConfigReference{ref(h2, &h2)}, configured: true, wantStatus: rolloutsdk.ToApply},
		"a config too many":                  {want: configs{h1}, refs: []addonv1alpha1.ConfigReference{ref(h1, &h1), ref(cfg(cm, "x", ""), nil)}, configured: true, wantStatus: rolloutsdk.ToApply},
		"listed but not Configured":          {want: configs{h1}, refs: []addonv1alpha1.ConfigReference{ref(h1, &h1)}, wantStatus: rolloutsdk.ToApply},
		"no configs, not Configured yet":     {wantStatus: rolloutsdk.Succeeded},
		"applied":                            {want: configs{h1}, refs: []addonv1alpha1.ConfigReference{ref(h1, &h1)}, configured: true, cond: progressing(addonv1alpha1.ProgressingReasonCompleted), wantStatus: rolloutsdk.Succeeded, wantSince: true},
		"applied, a failure from the past":   {want: configs{h1}, refs: []addonv1alpha1.ConfigReference{ref(h1, &h1)}, configured: true, cond: progressing(addonv1alpha1.ProgressingReasonFailed), wantStatus: rolloutsdk.Succeeded},
		"not applied yet":                    {want: configs{h1}, refs: []addonv1alpha1.ConfigReference{ref(h1, &h2)}, configured: true, cond: progressing(addonv1alpha1.ProgressingReasonProgressing), wantStatus: rolloutsdk.Progressing, wantSince: true},
		"not applied, Completed from before": {want: configs{h1}, refs: []addonv1alpha1.ConfigReference{ref(h1, &h2)}, configured: true, cond: progressing(addonv1alpha1.ProgressingReasonCompleted), wantStatus: rolloutsdk.Progressing},
		"not applied, no condition":          {want: configs{h1}, refs: []addonv1alpha1.ConfigReference{ref(h1, nil)}, configured: true, wantStatus: rolloutsdk.Progressing},
		"failed":                             {want: configs{h1}, refs: []addonv1alpha1.ConfigReference{ref(h1, &h2)}, configured: true, cond: progressing(addonv1alpha1.ProgressingReasonFailed), wantStatus: rolloutsdk.Failed, wantSince: true},
		"config unsupported":                 {want: configs{h1}, refs: []addonv1alpha1.ConfigReference{ref(h1, nil)}, configured: true, cond: progressing(addonv1alpha1.ProgressingReasonConfigurationUnsupported), wantStatus: rolloutsdk.Failed, wantSince: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			mca := &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: "c1"}}
			mca.Status.ConfigReferences = tc.refs
			if tc.configured {
				meta.SetStatusCondition(&mca.Status.Conditions, configured(0))
			}
			if tc.cond != nil {
				mca.Status.Conditions = append(mca.Status.Conditions, *tc.cond)
			}
			got := rolloutStatus(mca, tc.want)
			if got.Status != tc.wantStatus || got.ClusterName != "c1" {
				t.Errorf("rolloutStatus = %v on %s, want %v", got.Status, got.ClusterName, tc.wantStatus)
			}
			if gotSince := got.LastTransitionTime != nil && got.LastTransitionTime.Equal(&since); gotSince != tc.wantSince {
				t.Errorf("rolloutStatus counts from %v; from the condition's time: %v, want %v", got.LastTransitionTime, gotSince, tc.wantSince)
			}
		})
	}
}

func TestProgress(t *testing.T) {
	want := configs{cfg(adc, "p", "h1")}
	placed := func(cluster string, st rolloutsdk.RolloutStatus, c configs) *addon {
		mca := &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: cluster}}
		return &addon{mca: mca, want: c, status: rolloutsdk.ClusterRolloutStatus{ClusterName: cluster, Status: st}}
	}
	cases := map[string]struct {
		addons []*addon
		// soaking are clusters still in their minSuccessTime.
		soaking            []string
		wantStatus         metav1.ConditionStatus
		wantReason, wantIn string
		applied            bool
	}{
		"no addon yet": {wantStatus: metav1.ConditionTrue, wantReason: addonv1alpha1.ProgressingReasonProgressing, wantIn: "0/0 addons"},
		"one of two applied": {addons: []*addon{placed("a", rolloutsdk.Succeeded, want), placed("b", rolloutsdk.Progressing, want)},
			wantStatus: metav1.ConditionTrue, wantReason: addonv1alpha1.ProgressingReasonProgressing, wantIn: "1/2 addons applied the configs, 1 progressing"},
		"all applied, one still in its minSuccessTime": {addons: []*addon{placed("a", rolloutsdk.Succeeded, want), placed("b", rolloutsdk.Succeeded, want)}, soaking: []string{"b"},
			wantStatus: metav1.ConditionTrue, wantReason: addonv1alpha1.ProgressingReasonProgressing, wantIn: "1/2 addons applied the configs, 1 progressing"},
		"all applied, one with its own configs left out": {addons: []*addon{placed("a", rolloutsdk.Succeeded, want), placed("b", rolloutsdk.ToApply, configs{cfg(adc, "own", "")})},
			wantStatus: metav1.ConditionFalse, wantReason: addonv1alpha1.ProgressingReasonCompleted, wantIn: "1/1 addons", applied: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			prog := &addonv1alpha1.InstallProgression{ConfigReferences: []addonv1alpha1.InstallConfigReference{{ConfigGroupResource: adc, DesiredConfig: want[0].ConfigSpecHash.DeepCopy()}}}
			p := &placement{want: want, addons: tc.addons, clusters: sets.New("a", "b"), claimed: sets.New[string]()}
			for _, c := range tc.soaking {
				p.result.ClustersToRollout = append(p.result.ClustersToRollout, rolloutsdk.ClusterRolloutStatus{ClusterName: c, Status: rolloutsdk.Succeeded})
			}
			progress(prog, p)
			c := meta.FindStatusCondition(prog.Conditions, addonv1alpha1.ManagedClusterAddOnConditionProgressing)
			if c == nil || c.Status != tc.wantStatus || c.Reason != tc.wantReason || !strings.Contains(c.Message, tc.wantIn) {
				t.Fatalf("condition %+v, want %s %s with %q", c, tc.wantStatus, tc.wantReason, tc.wantIn)
			}
			got := prog.ConfigReferences[0]
			if tc.applied != (got.LastAppliedConfig != nil && *got.LastAppliedConfig == want[0].ConfigSpecHash && *got.LastKnownGoodConfig == want[0].ConfigSpecHash) {
				t.Errorf("last applied %v, last known good %v; want them set: %v", got.LastAppliedConfig, got.LastKnownGoodConfig, tc.applied)
			}
		})
	}
}
