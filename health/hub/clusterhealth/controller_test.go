package clusterhealth

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/corral-dev/corral/addons/configmapchannel"
	"github.com/corral-dev/corral/health/api"
	"github.com/corral-dev/corral/internal/fieldpatch"
)

type fixture struct {
	hub, reports client.Client
	clock        *clocktesting.FakeClock
	rec          *events.FakeRecorder
	r            *Reconciler
}

func newFixture(t *testing.T, objs ...client.Object) *fixture {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, clusterv1.Install, addonv1alpha1.Install} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	f := &fixture{clock: clocktesting.NewFakeClock(time.Unix(10000, 0)), rec: events.NewFakeRecorder(10)}
	f.hub = fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).WithStatusSubresource(&clusterv1.ManagedCluster{}).
		WithInterceptorFuncs(interceptor.Funcs{Patch: fieldpatch.AsAPIServer}).Build()
	f.reports = fake.NewClientBuilder().WithScheme(s).Build()
	f.r = &Reconciler{Client: f.hub, Reports: f.reports, Recorder: f.rec, Clock: f.clock}
	return f
}

func (f *fixture) report(t *testing.T, r *api.Report) {
	cm, err := configmapchannel.Object("c1", api.ReportName, api.AddonName, r)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.reports.Delete(context.Background(), cm); client.IgnoreNotFound(err) != nil {
		t.Fatal(err)
	}
	if err := f.reports.Create(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) reconcile(t *testing.T) (*clusterv1.ManagedCluster, time.Duration) {
	res, err := f.r.Reconcile(context.Background(), reconcileRequest("c1"))
	if err != nil {
		t.Fatal(err)
	}
	mc := &clusterv1.ManagedCluster{}
	if err := f.hub.Get(context.Background(), types.NamespacedName{Name: "c1"}, mc); err != nil {
		t.Fatal(err)
	}
	return mc, res.RequeueAfter
}

func tainted(mc *clusterv1.ManagedCluster) bool {
	for _, t := range mc.Spec.Taints {
		if t.Key == api.TaintUnhealthy && t.Effect == clusterv1.TaintEffectNoSelect {
			return true
		}
	}
	return false
}

func TestReconcile(t *testing.T) {
	other := clusterv1.Taint{Key: "team", Effect: clusterv1.TaintEffectPreferNoSelect}
	addon := &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: api.AddonName}}
	f := newFixture(t, &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "c1"}, Spec: clusterv1.ManagedClusterSpec{Taints: []clusterv1.Taint{other}}}, addon)

	// Enabled, no report yet: Unknown, no taint.
	mc, _ := f.reconcile(t)
	if c := meta.FindStatusCondition(mc.Status.Conditions, api.ConditionHealthy); c == nil || c.Status != metav1.ConditionUnknown {
		t.Errorf("before a report: condition %v, want Unknown", c)
	}
	if tainted(mc) {
		t.Error("tainted before any report")
	}

	// API server not live: False, tainted, other taints kept, an Event.
	f.report(t, &api.Report{ProbeTime: metav1.NewTime(f.clock.Now()), Livez: api.Check{Message: "refused"}, Readyz: api.Check{OK: true}})
	mc, requeue := f.reconcile(t)
	if !meta.IsStatusConditionFalse(mc.Status.Conditions, api.ConditionHealthy) || !tainted(mc) || len(mc.Spec.Taints) != 2 {
		t.Errorf("API server down: conditions %v, taints %v", mc.Status.Conditions, mc.Spec.Taints)
	}
	if requeue <= 0 {
		t.Error("no look again at the time the report goes stale")
	}
	if len(f.rec.Events) != 1 {
		t.Errorf("%d events on turning unhealthy, want 1", len(f.rec.Events))
	}

	// Recovered: True, taint gone.
	f.report(t, &api.Report{ProbeTime: metav1.NewTime(f.clock.Now()), Livez: api.Check{OK: true}, Readyz: api.Check{OK: true}})
	mc, _ = f.reconcile(t)
	if !meta.IsStatusConditionTrue(mc.Status.Conditions, api.ConditionHealthy) || tainted(mc) || len(mc.Spec.Taints) != 1 {
		t.Errorf("recovered: conditions %v, taints %v", mc.Status.Conditions, mc.Spec.Taints)
	}

	// The reports stop: stale after staleAfter, tainted again.
	f.clock.Step(api.DefaultSettings().StaleAfter.Duration + time.Second)
	mc, _ = f.reconcile(t)
	if c := meta.FindStatusCondition(mc.Status.Conditions, api.ConditionHealthy); c == nil || c.Reason != api.ReasonReportStale || !tainted(mc) {
		t.Errorf("stale: condition %v, taints %v", c, mc.Spec.Taints)
	}

	// Disabled: condition and taint go; the other taint stays.
	if err := f.hub.Delete(context.Background(), addon); err != nil {
		t.Fatal(err)
	}
	mc, _ = f.reconcile(t)
	if meta.FindStatusCondition(mc.Status.Conditions, api.ConditionHealthy) != nil || tainted(mc) || len(mc.Spec.Taints) != 1 {
		t.Errorf("disabled: conditions %v, taints %v", mc.Status.Conditions, mc.Spec.Taints)
	}
}
