package clusterstatus

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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

	"github.com/corral-dev/corral/addons/configmapchannel"
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
	reported := clusterv1.ManagedClusterStatus{Version: clusterv1.ManagedClusterVersion{Kubernetes: "v1.34.0"},
		Capacity:      clusterv1.ResourceList{clusterv1.ResourceCPU: resource.MustParse("8")},
		ClusterClaims: []clusterv1.ManagedClusterClaim{{Name: "region", Value: "eu"}}}
	cases := map[string]struct {
		report         *api.Report
		noAddon        bool
		status         clusterv1.ManagedClusterStatus // the cluster's before
		wantVersion    string
		wantClaims     int
		wantCondStatus metav1.ConditionStatus
		wantEvent      bool
		wantReportGone bool
		// reportDeleted: the reports' cache still holds a report the hub
		// no longer has.
		reportDeleted bool
	}{
		"a report is reflected": {
			report:      &api.Report{KubernetesVersion: "v1.35.4", Claims: []api.Claim{{Name: "a", Value: "1"}}},
			wantVersion: "v1.35.4", wantClaims: 1, wantCondStatus: metav1.ConditionTrue,
		},
		"a truncated report is reflected and said so": {
			report:      &api.Report{KubernetesVersion: "v1.35.4", Dropped: []string{"huge"}},
			wantVersion: "v1.35.4", wantCondStatus: metav1.ConditionFalse, wantEvent: true,
		},
		"a disabled addon's report left behind: its properties and the report go": {
			report: &api.Report{KubernetesVersion: "v1.34.0"}, noAddon: true, status: reported,
			wantEvent: true, wantReportGone: true,
		},
		"a report deleted but still cached removes nothing": {
			report: &api.Report{KubernetesVersion: "v1.34.0"}, noAddon: true, reportDeleted: true, status: reported,
			wantVersion: "v1.34.0", wantClaims: 1, wantReportGone: true,
		},
		"no addon and no report: properties from elsewhere stay": {
			noAddon: true, status: reported, wantVersion: "v1.34.0", wantClaims: 1,
		},
		"no report, nothing reflected": {status: reported, wantVersion: "v1.34.0", wantClaims: 1},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			objs := []client.Object{&clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "c1"}, Status: tc.status}}
			if !tc.noAddon {
				objs = append(objs, &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: api.AddonName}})
			}
			var reports []client.Object
			if tc.report != nil {
				cm, err := configmapchannel.Object("c1", api.ReportName, api.AddonName, tc.report)
				if err != nil {
					t.Fatal(err)
				}
				reports = append(reports, cm)
				if !tc.reportDeleted {
					objs = append(objs, cm.DeepCopy()) // the hub the reports' cache reads
				}
			}
			s := scheme(t)
			c := fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).
				WithStatusSubresource(&clusterv1.ManagedCluster{}, &addonv1alpha1.ManagedClusterAddOn{}).Build()
			rec := events.NewFakeRecorder(10)
			r := &Reconciler{Client: c, Live: c, Reports: fake.NewClientBuilder().WithScheme(s).WithObjects(reports...).Build(), Recorder: rec}
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
			if len(mc.Status.ClusterClaims) != tc.wantClaims {
				t.Errorf("claims %v, want %d", mc.Status.ClusterClaims, tc.wantClaims)
			}
			err := c.Get(context.Background(), types.NamespacedName{Namespace: "c1", Name: api.ReportName}, &corev1.ConfigMap{})
			if gone := apierrors.IsNotFound(err); tc.report != nil && gone != tc.wantReportGone {
				t.Errorf("report gone: %v (%v), want %v", gone, err, tc.wantReportGone)
			}
			if tc.noAddon {
				expectEvent(t, rec, tc.wantEvent, ReasonPropertiesRemoved)
				return
			}
			if tc.report == nil {
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
			expectEvent(t, rec, tc.wantEvent, ReasonClaimsTruncated)
		})
	}
}

// expectEvent checks that rec holds one event of reason when want says
// so, and none otherwise.
func expectEvent(t *testing.T, rec *events.FakeRecorder, want bool, reason string) {
	t.Helper()
	select {
	case e := <-rec.Events:
		if !want || !strings.Contains(e, reason) {
			t.Errorf("event %q, want one: %v (reason %s)", e, want, reason)
		}
	default:
		if want {
			t.Errorf("no event recorded, want one of reason %s", reason)
		}
	}
}
