package clusterstatus

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/corral-dev/corral/addons/report"
	"github.com/corral-dev/corral/properties/api"
)

func scheme(t *testing.T) *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, clusterv1.Install, addonv1alpha1.Install} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestReflect(t *testing.T) {
	rep := &api.Report{
		KubernetesVersion: "v1.35.4",
		Capacity:          corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8"), "nvidia.com/gpu": resource.MustParse("2")},
		Allocatable:       corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("7")},
		Claims:            []api.Claim{{Name: "b", Value: "2"}, {Name: "a", Value: "1"}},
	}
	old := clusterv1.ManagedClusterStatus{Conditions: []metav1.Condition{{Type: "X", Status: metav1.ConditionTrue}}}
	got := Reflect(old, rep)
	want := clusterv1.ManagedClusterStatus{
		Conditions:    old.Conditions,
		Version:       clusterv1.ManagedClusterVersion{Kubernetes: "v1.35.4"},
		Capacity:      clusterv1.ResourceList{"cpu": resource.MustParse("8"), "nvidia.com/gpu": resource.MustParse("2")},
		Allocatable:   clusterv1.ResourceList{"cpu": resource.MustParse("7")},
		ClusterClaims: []clusterv1.ManagedClusterClaim{{Name: "a", Value: "1"}, {Name: "b", Value: "2"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Reflect (-want +got):\n%s", diff)
	}
}

// TestReconcile runs the steps over a fake hub: the status is written, and
// a truncated report sets the addon's condition and an Event.
func TestReconcile(t *testing.T) {
	cases := map[string]struct {
		report         *api.Report
		noAddon        bool
		wantVersion    string
		wantCondStatus metav1.ConditionStatus
		wantEvent      bool
	}{
		"a report is reflected": {
			report:      &api.Report{KubernetesVersion: "v1.35.4", Claims: []api.Claim{{Name: "a", Value: "1"}}},
			wantVersion: "v1.35.4", wantCondStatus: metav1.ConditionTrue,
		},
		"a truncated report is reflected and said so": {
			report:      &api.Report{KubernetesVersion: "v1.35.4", Dropped: []string{"huge"}},
			wantVersion: "v1.35.4", wantCondStatus: metav1.ConditionFalse, wantEvent: true,
		},
		"no addon, nothing reflected": {
			report: &api.Report{KubernetesVersion: "v1.35.4"}, noAddon: true,
		},
		"no report, nothing reflected": {},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			objs := []client.Object{&clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "c1"}}}
			if !tc.noAddon {
				objs = append(objs, &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: api.AddonName}})
			}
			var reports []client.Object
			if tc.report != nil {
				cm, err := report.Object("c1", api.ReportName, api.AddonName, tc.report)
				if err != nil {
					t.Fatal(err)
				}
				reports = append(reports, cm)
			}
			s := scheme(t)
			c := fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).
				WithStatusSubresource(&clusterv1.ManagedCluster{}, &addonv1alpha1.ManagedClusterAddOn{}).Build()
			rec := events.NewFakeRecorder(10)
			r := &Reconciler{Client: c, Reports: fake.NewClientBuilder().WithScheme(s).WithObjects(reports...).Build(), Recorder: rec}
			if _, err := r.Reconcile(context.Background(), reconcileRequest("c1")); err != nil {
				t.Fatal(err)
			}
			mc := &clusterv1.ManagedCluster{}
			if err := c.Get(context.Background(), types.NamespacedName{Name: "c1"}, mc); err != nil {
				t.Fatal(err)
			}
			if mc.Status.Version.Kubernetes != tc.wantVersion {
				t.Errorf("version %q, want %q", mc.Status.Version.Kubernetes, tc.wantVersion)
			}
			if tc.noAddon || tc.report == nil {
				return
			}
			mca := &addonv1alpha1.ManagedClusterAddOn{}
			if err := c.Get(context.Background(), types.NamespacedName{Namespace: "c1", Name: api.AddonName}, mca); err != nil {
				t.Fatal(err)
			}
			cond := meta.FindStatusCondition(mca.Status.Conditions, ConditionClaimsWithinLimits)
			if cond == nil || cond.Status != tc.wantCondStatus {
				t.Fatalf("condition %v, want status %s", cond, tc.wantCondStatus)
			}
			if tc.wantEvent && !strings.Contains(cond.Message, "huge") {
				t.Errorf("condition message %q does not name the dropped claim", cond.Message)
			}
			select {
			case e := <-rec.Events:
				if !tc.wantEvent {
					t.Errorf("unexpected event %q", e)
				}
			default:
				if tc.wantEvent {
					t.Error("no event recorded")
				}
			}
		})
	}
}
