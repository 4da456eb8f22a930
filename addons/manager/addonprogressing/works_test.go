package addonprogressing

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	"open-cluster-management.io/addon-framework/pkg/addonmanager/controllers/agentdeploy"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/corral-dev/corral/internal/testing/builder"
)

var (
	adc     = addonv1alpha1.ConfigGroupResource{Group: addonv1alpha1.GroupName, Resource: "addondeploymentconfigs"}
	desired = addonv1alpha1.ConfigReference{ConfigGroupResource: adc, DesiredConfig: &addonv1alpha1.ConfigSpecHash{
		ConfigReferent: addonv1alpha1.ConfigReferent{Namespace: "ns", Name: "c"}, SpecHash: "h2",
	}}
)

// work is a work of the addon hello at generation 2, rendered with hashes
// (no annotation when nil), with the given conditions.
func work(name string, hashes map[string]string, conds ...metav1.Condition) workv1.ManifestWork {
	w := builder.Work("", name).Generation(2).Condition(conds...)
	if hashes != nil {
		b, _ := json.Marshal(hashes)
		w.Annotation(workv1.ManifestConfigSpecHashAnnotationKey, string(b))
	}
	return *w.Obj()
}

func cond(typ string, status metav1.ConditionStatus, generation int64) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, ObservedGeneration: generation}
}

var (
	applied   = cond(workv1.WorkApplied, metav1.ConditionTrue, 2)
	available = cond(workv1.WorkAvailable, metav1.ConditionTrue, 2)
	rendered  = map[string]string{"addondeploymentconfigs.addon.open-cluster-management.io/ns/c": "h2"}
)

func TestSetWorkProgressing(t *testing.T) {
	manifestApplied := metav1.Condition{Type: addonv1alpha1.ManagedClusterAddOnManifestApplied, Status: metav1.ConditionTrue}
	cases := map[string]struct {
		configs    []addonv1alpha1.AddOnConfig
		supported  []addonv1alpha1.ConfigGroupResource
		refs       []addonv1alpha1.ConfigReference
		hosted     bool
		notApplied bool
		works      []workv1.ManifestWork
		wantStatus metav1.ConditionStatus
		wantReason string
		wantMsg    string
		wantLast   bool
	}{
		"a config of a type the addon does not support": {
			configs:    []addonv1alpha1.AddOnConfig{{ConfigGroupResource: adc}},
			wantStatus: metav1.ConditionFalse, wantReason: addonv1alpha1.ProgressingReasonConfigurationUnsupported, wantMsg: "not supported",
		},
		"manifests not rendered yet": {
			notApplied: true,
			wantStatus: metav1.ConditionFalse, wantReason: ReasonWaitingForManifestApplied,
		},
		"hosted, its hosting manifests not rendered yet": {
			hosted: true, works: []workv1.ManifestWork{work("addon-hello-deploy-0", nil, applied, available)},
			wantStatus: metav1.ConditionFalse, wantReason: ReasonWaitingForHostingManifestApplied,
		},
		"no work": {
			wantStatus: metav1.ConditionTrue, wantReason: addonv1alpha1.ProgressingReasonProgressing, wantMsg: "no addon works",
		},
		"a work not yet applied": {
			works:      []workv1.ManifestWork{work("addon-hello-deploy-0", nil, available)},
			wantStatus: metav1.ConditionTrue, wantReason: addonv1alpha1.ProgressingReasonProgressing, wantMsg: "work is not ready",
		},
		"a work available at an older generation": {
			works:      []workv1.ManifestWork{work("addon-hello-deploy-0", nil, applied, cond(workv1.WorkAvailable, metav1.ConditionTrue, 1))},
			wantStatus: metav1.ConditionTrue, wantReason: addonv1alpha1.ProgressingReasonProgressing, wantMsg: "work is not ready",
		},
		"one of two works not available": {
			works: []workv1.ManifestWork{
				work("addon-hello-deploy-0", nil, applied, available),
				work("addon-hello-deploy-1", nil, applied, cond(workv1.WorkAvailable, metav1.ConditionFalse, 2)),
			},
			wantStatus: metav1.ConditionTrue, wantReason: addonv1alpha1.ProgressingReasonProgressing, wantMsg: "work is not ready",
		},
		"no configs, every work applied and available": {
			works:      []workv1.ManifestWork{work("addon-hello-deploy-0", nil, applied, available)},
			wantStatus: metav1.ConditionFalse, wantReason: addonv1alpha1.ProgressingReasonCompleted,
		},
		"the pre-delete hook's work is not waited for": {
			works: []workv1.ManifestWork{
				work("addon-hello-deploy-0", nil, applied, available),
				work("addon-hello-pre-delete", nil),
			},
			wantStatus: metav1.ConditionFalse, wantReason: addonv1alpha1.ProgressingReasonCompleted,
		},
		"a work rendered with the desired config": {
			refs: []addonv1alpha1.ConfigReference{desired}, works: []workv1.ManifestWork{work("addon-hello-deploy-0", rendered, applied, available)},
			wantStatus: metav1.ConditionFalse, wantReason: addonv1alpha1.ProgressingReasonCompleted, wantLast: true,
		},
		"a work rendered with the config's old spec": {
			refs:       []addonv1alpha1.ConfigReference{desired},
			works:      []workv1.ManifestWork{work("addon-hello-deploy-0", map[string]string{"addondeploymentconfigs.addon.open-cluster-management.io/ns/c": "h1"}, applied, available)},
			wantStatus: metav1.ConditionTrue, wantReason: addonv1alpha1.ProgressingReasonProgressing, wantMsg: "configs mismatch",
		},
		"a work rendered before the config was hashed": {
			refs:       []addonv1alpha1.ConfigReference{desired},
			works:      []workv1.ManifestWork{work("addon-hello-deploy-0", map[string]string{"addondeploymentconfigs.addon.open-cluster-management.io/ns/c": ""}, applied, available)},
			wantStatus: metav1.ConditionTrue, wantReason: addonv1alpha1.ProgressingReasonProgressing, wantMsg: "configs mismatch",
		},
		"a work without the annotation, the addon with a config": {
			refs:       []addonv1alpha1.ConfigReference{desired},
			works:      []workv1.ManifestWork{work("addon-hello-deploy-0", nil, applied, available)},
			wantStatus: metav1.ConditionTrue, wantReason: addonv1alpha1.ProgressingReasonProgressing, wantMsg: "configs mismatch",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			mca := &addonv1alpha1.ManagedClusterAddOn{
				ObjectMeta: metav1.ObjectMeta{Name: "hello", Namespace: "c1"},
				Spec:       addonv1alpha1.ManagedClusterAddOnSpec{Configs: tc.configs},
				Status:     addonv1alpha1.ManagedClusterAddOnStatus{ConfigReferences: tc.refs, SupportedConfigs: tc.supported},
			}
			if tc.hosted {
				mca.Annotations = map[string]string{addonv1alpha1.HostingClusterNameAnnotationKey: "hosting"}
			}
			if !tc.notApplied {
				mca.Status.Conditions = []metav1.Condition{manifestApplied}
			}
			SetWorkProgressing(klog.Background(), mca, tc.works)
			c := meta.FindStatusCondition(mca.Status.Conditions, addonv1alpha1.ManagedClusterAddOnConditionProgressing)
			if c == nil || c.Status != tc.wantStatus || c.Reason != tc.wantReason {
				t.Fatalf("Progressing = %+v, want %s %s", c, tc.wantStatus, tc.wantReason)
			}
			if tc.wantMsg != "" && !strings.Contains(c.Message, tc.wantMsg) {
				t.Errorf("message %q, want it to say %q", c.Message, tc.wantMsg)
			}
			for _, ref := range mca.Status.ConfigReferences {
				if got := ref.LastAppliedConfig != nil && *ref.LastAppliedConfig == *ref.DesiredConfig; got != tc.wantLast {
					t.Errorf("last applied = %+v, want it the desired one: %t", ref.LastAppliedConfig, tc.wantLast)
				}
			}
		})
	}
}

// TestDesiredHashesAsTheFramework: the keys compared with a work's
// config-spec-hash annotation are the addon framework's own.
func TestDesiredHashesAsTheFramework(t *testing.T) {
	refs := []addonv1alpha1.ConfigReference{
		desired,
		{ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Resource: "configmaps"}, DesiredConfig: &addonv1alpha1.ConfigSpecHash{
			ConfigReferent: addonv1alpha1.ConfigReferent{Namespace: "ns", Name: "m"}, SpecHash: "h3",
		}},
		{ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Group: "example.com", Resource: "clusterconfigs"}, DesiredConfig: &addonv1alpha1.ConfigSpecHash{
			ConfigReferent: addonv1alpha1.ConfigReferent{Name: "global"}, SpecHash: "h4",
		}},
	}
	var beta []addonv1beta1.ConfigReference
	for _, r := range refs {
		beta = append(beta, addonv1beta1.ConfigReference{
			ConfigGroupResource: addonv1beta1.ConfigGroupResource{Group: r.Group, Resource: r.Resource},
			DesiredConfig: &addonv1beta1.ConfigSpecHash{
				ConfigReferent: addonv1beta1.ConfigReferent{Namespace: r.DesiredConfig.Namespace, Name: r.DesiredConfig.Name},
				SpecHash:       r.DesiredConfig.SpecHash,
			},
		})
	}
	got, ok := desiredHashes(refs)
	if !ok {
		t.Fatal("desiredHashes says a config has no hash")
	}
	if diff := cmp.Diff(agentdeploy.ConfigsToMap(beta), got); diff != "" {
		t.Errorf("keys (-framework +corral):\n%s", diff)
	}
}

// TestWorkReconcilerLeavesSelfManaged: an addon whose lifecycle annotation
// says it runs its own lifecycle is not written; one the hub runs is.
func TestWorkReconcilerLeavesSelfManaged(t *testing.T) {
	for _, tc := range []struct {
		lifecycle   string
		wantWritten bool
	}{
		{addonv1alpha1.AddonLifecycleSelfManageAnnotationValue, false},
		{addonv1alpha1.AddonLifecycleAddonManagerAnnotationValue, true},
	} {
		t.Run(tc.lifecycle, func(t *testing.T) {
			scheme := runtime.NewScheme()
			if err := errors.Join(addonv1alpha1.Install(scheme), workv1.Install(scheme)); err != nil {
				t.Fatal(err)
			}
			cma := &addonv1alpha1.ClusterManagementAddOn{ObjectMeta: metav1.ObjectMeta{Name: "hello",
				Annotations: map[string]string{addonv1alpha1.AddonLifecycleAnnotationKey: tc.lifecycle}}}
			mca := &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Name: "hello", Namespace: "c1"}}
			c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(cma, mca).WithStatusSubresource(mca).Build()
			r := &WorkReconciler{Client: c, addonWorks: c, Skip: sets.New("work")}
			if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(mca)}); err != nil {
				t.Fatal(err)
			}
			got := &addonv1alpha1.ManagedClusterAddOn{}
			if err := c.Get(context.Background(), client.ObjectKeyFromObject(mca), got); err != nil {
				t.Fatal(err)
			}
			written := meta.FindStatusCondition(got.Status.Conditions, addonv1alpha1.ManagedClusterAddOnConditionProgressing) != nil
			if written != tc.wantWritten {
				t.Errorf("Progressing written: %t, want %t", written, tc.wantWritten)
			}
		})
	}
}
