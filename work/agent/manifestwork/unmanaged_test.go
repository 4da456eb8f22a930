package manifestwork

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clocktesting "k8s.io/utils/clock/testing"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/corral-dev/corral/work/agent/appliedwork"
	"github.com/corral-dev/corral/work/agent/apply"
)

const (
	thisHub  = "hub"
	otherHub = "oldhub"
	agentID  = "agent"
	grace    = time.Minute
)

// evictionFixture is a managed cluster holding AppliedManifestWorks and
// the ConfigMaps they own, and a Reconciler for this hub on a fake clock.
type evictionFixture struct {
	r      *Reconciler
	server client.Client
	clock  *clocktesting.FakeClock
	dyn    *dynamicfake.FakeDynamicClient
}

// appliedWork is an AppliedManifestWork of hub for work, made by agent,
// recording the ConfigMaps named (whose UIDs are their names).
func appliedWork(hub, agent, work string, configMaps ...string) *workv1.AppliedManifestWork {
	name := appliedwork.Name(hub, work)
	amw := &workv1.AppliedManifestWork{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name + "-uid"), Finalizers: []string{workv1.AppliedManifestWorkFinalizer}},
		Spec:       workv1.AppliedManifestWorkSpec{HubHash: hub, AgentID: agent, ManifestWorkName: work},
	}
	for _, cm := range configMaps {
		amw.Status.AppliedResources = append(amw.Status.AppliedResources, workv1.AppliedManifestResourceMeta{
			ResourceIdentifier: workv1.ResourceIdentifier{Resource: "configmaps", Namespace: "default", Name: cm}, Version: "v1", UID: cm})
	}
	return amw
}

// ownedConfigMap is a ConfigMap owned by the AppliedManifestWorks given.
func ownedConfigMap(name string, owners ...*workv1.AppliedManifestWork) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID(name)}}
	for _, o := range owners {
		cm.OwnerReferences = append(cm.OwnerReferences, appliedwork.Owner(o))
	}
	return cm
}

// managedScheme knows the AppliedManifestWorks and the ConfigMaps they own.
func managedScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := workv1.Install(scheme); err != nil {
		t.Fatal(err)
	}
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	return scheme
}

func newEvictionFixture(t *testing.T, gracePeriod time.Duration, amws []*workv1.AppliedManifestWork, cms ...*corev1.ConfigMap) *evictionFixture {
	t.Helper()
	scheme := managedScheme(t)
	b := fake.NewClientBuilder().WithScheme(scheme).WithStatusSubresource(&workv1.AppliedManifestWork{})
	for _, amw := range amws {
		b = b.WithObjects(amw)
	}
	server := b.Build()
	var objs []runtime.Object
	for _, cm := range cms {
		objs = append(objs, cm)
	}
	dyn := dynamicfake.NewSimpleDynamicClient(scheme, objs...)
	// Whole seconds: the API server keeps the eviction start time so.
	clock := clocktesting.NewFakeClock(time.Date(2026, 11, 24, 3, 0, 0, 0, time.UTC))
	r := &Reconciler{
		opts:    Options{HubHash: thisHub, AgentID: agentID, EvictionGracePeriod: gracePeriod, Clock: clock},
		hub:     fake.NewClientBuilder().WithScheme(scheme).Build(),
		managed: server, live: server, dynamic: dyn, applier: apply.NewApplier(dyn), applied: newWriteMemo(),
		readers: newReadIndex(), waiting: map[string]bool{}, statuses: newWriteMemo(),
	}
	return &evictionFixture{r: r, server: server, clock: clock, dyn: dyn}
}

// evictUnmanaged reconciles the AppliedManifestWork named as the unmanaged
// controller does, as often as it asks to look again right away (a
// released object being deleted), and returns the last result.
func (f *evictionFixture) evictUnmanaged(t *testing.T, name string) ctrl.Result {
	t.Helper()
	var res ctrl.Result
	for range 3 {
		var err error
		res, err = unmanaged{r: f.r}.Reconcile(context.Background(), ctrl.Request{NamespacedName: types.NamespacedName{Name: name}})
		if err != nil {
			t.Fatal(err)
		}
		if res.RequeueAfter != releaseRetry {
			break
		}
	}
	return res
}

func (f *evictionFixture) appliedWork(t *testing.T, name string) *workv1.AppliedManifestWork {
	t.Helper()
	amw := &workv1.AppliedManifestWork{}
	err := f.server.Get(context.Background(), client.ObjectKey{Name: name}, amw)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return amw
}

// owners are the names of the ConfigMap's owners, or nil when it is gone.
func (f *evictionFixture) owners(t *testing.T, name string) []string {
	t.Helper()
	cm, err := f.dyn.Resource(corev1.SchemeGroupVersion.WithResource("configmaps")).Namespace("default").Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, ref := range cm.GetOwnerReferences() {
		out = append(out, ref.Name)
	}
	return out
}

// TestUnmanagedEvictsAnotherHubsAppliedWorkAfterTheGracePeriod: an
// AppliedManifestWork the agent made for another hub is evicted once the
// grace period has passed, even though this hub has a work of that name:
// what only it owns is deleted, what this hub's work applies too is kept.
func TestUnmanagedEvictsAnotherHubsAppliedWorkAfterTheGracePeriod(t *testing.T) {
	stale := appliedWork(otherHub, agentID, "web", "only", "shared")
	live := appliedWork(thisHub, agentID, "web", "shared")
	f := newEvictionFixture(t, grace, []*workv1.AppliedManifestWork{stale, live},
		ownedConfigMap("only", stale), ownedConfigMap("shared", live, stale))
	start := f.clock.Now()

	if res := f.evictUnmanaged(t, stale.Name); res.RequeueAfter != grace {
		t.Errorf("first look: requeue after %v, want the grace period %v", res.RequeueAfter, grace)
	}
	if got := f.appliedWork(t, stale.Name).Status.EvictionStartTime; got == nil || !got.Time.Equal(start) {
		t.Fatalf("eviction start time %v, want %v", got, start)
	}
	f.clock.Step(grace - time.Second)
	if res := f.evictUnmanaged(t, stale.Name); res.RequeueAfter != time.Second {
		t.Errorf("within the grace period: requeue after %v, want the second left", res.RequeueAfter)
	}
	if diff := cmp.Diff([]string{stale.Name}, f.owners(t, "only")); diff != "" {
		t.Fatalf("within the grace period (-want +got):\n%s", diff)
	}

	f.clock.Step(time.Second)
	f.evictUnmanaged(t, stale.Name)
	if got := f.owners(t, "only"); got != nil {
		t.Errorf("what only the other hub's record owned is still there, owned by %v", got)
	}
	if diff := cmp.Diff([]string{live.Name}, f.owners(t, "shared")); diff != "" {
		t.Errorf("what this hub's work applies too (-want +got):\n%s", diff)
	}
	if f.appliedWork(t, stale.Name) != nil {
		t.Error("the other hub's AppliedManifestWork was not deleted")
	}
	if f.appliedWork(t, live.Name) == nil {
		t.Error("this hub's AppliedManifestWork was deleted")
	}
}

// TestStaleAppliedWorkKeepsASharedObjectOnlyUntilItIsEvicted: a work of
// this hub deleted while another hub's record still owns what it applied
// leaves the object to that record, which lets it go when it is evicted:
// the stale record does not keep it forever.
func TestStaleAppliedWorkKeepsASharedObjectOnlyUntilItIsEvicted(t *testing.T) {
	stale := appliedWork(otherHub, agentID, "web", "shared")
	live := appliedWork(thisHub, agentID, "web", "shared")
	f := newEvictionFixture(t, grace, []*workv1.AppliedManifestWork{stale, live}, ownedConfigMap("shared", live, stale))

	f.evictUnmanaged(t, stale.Name) // the grace period starts
	for range 3 {                   // this hub's work is deleted
		if _, err := f.r.releaseAll(context.Background(), live.Name, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]string{stale.Name}, f.owners(t, "shared")); diff != "" {
		t.Fatalf("after this hub's work let go (-want +got):\n%s", diff)
	}
	f.clock.Step(grace)
	f.evictUnmanaged(t, stale.Name)
	if got := f.owners(t, "shared"); got != nil {
		t.Errorf("the object is still there after the stale record was evicted, owned by %v", got)
	}
}

// TestUnmanagedLeavesAlone checks what the unmanaged controller does not
// evict.
func TestUnmanagedLeavesAlone(t *testing.T) {
	started := &metav1.Time{Time: time.Date(2026, 11, 24, 2, 0, 0, 0, time.UTC)}
	withStart := func(amw *workv1.AppliedManifestWork, start *metav1.Time) *workv1.AppliedManifestWork {
		amw.Status.EvictionStartTime = start
		return amw
	}
	cases := map[string]struct {
		amw         *workv1.AppliedManifestWork
		gracePeriod time.Duration
		wantStart   *metav1.Time
	}{
		"this hub's record (its work's reconcile looks after it)": {amw: appliedWork(thisHub, agentID, "web", "cm"), gracePeriod: grace},
		"another agent's record":                                  {amw: appliedWork(otherHub, "other-agent", "web", "cm"), gracePeriod: grace},
		"eviction turned off: a started eviction is called off": {
			amw: withStart(appliedWork(otherHub, agentID, "web", "cm"), started), gracePeriod: EvictionGracePeriodBound,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := newEvictionFixture(t, tc.gracePeriod, []*workv1.AppliedManifestWork{tc.amw}, ownedConfigMap("cm", tc.amw))
			for range 2 {
				if res := f.evictUnmanaged(t, tc.amw.Name); res.RequeueAfter != 0 {
					t.Errorf("requeue after %v, want none", res.RequeueAfter)
				}
				f.clock.Step(2 * grace)
			}
			amw := f.appliedWork(t, tc.amw.Name)
			if amw == nil {
				t.Fatal("the AppliedManifestWork was deleted")
			}
			if diff := cmp.Diff(tc.wantStart, amw.Status.EvictionStartTime); diff != "" {
				t.Errorf("eviction start time (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{tc.amw.Name}, f.owners(t, "cm")); diff != "" {
				t.Errorf("its ConfigMap (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnmanagedReleasesADeletedRecordAtOnce: another hub's record a
// cluster admin deletes releases what it applied without waiting.
func TestUnmanagedReleasesADeletedRecordAtOnce(t *testing.T) {
	stale := appliedWork(otherHub, agentID, "web", "cm")
	now := metav1.Now()
	stale.DeletionTimestamp = &now
	f := newEvictionFixture(t, grace, []*workv1.AppliedManifestWork{stale}, ownedConfigMap("cm", stale))
	f.evictUnmanaged(t, stale.Name)
	if got := f.owners(t, "cm"); got != nil {
		t.Errorf("what the deleted record applied is still there, owned by %v", got)
	}
	if f.appliedWork(t, stale.Name) != nil {
		t.Error("the record is still there")
	}
}

// TestVanishedLeavesAnotherAgentsRecord: an AppliedManifestWork of this
// hub whose work is not in this agent's cluster namespace is another
// cluster's agent's when it carries that agent's ID (several agents may
// share one managed cluster): not evicted.
func TestVanishedLeavesAnotherAgentsRecord(t *testing.T) {
	cases := map[string]struct {
		agent     string
		wantStart bool
	}{
		"this agent's: eviction starts": {agent: agentID, wantStart: true},
		"another agent's: left alone":   {agent: "other-agent"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			amw := appliedWork(thisHub, tc.agent, "web", "cm")
			f := newEvictionFixture(t, grace, []*workv1.AppliedManifestWork{amw}, ownedConfigMap("cm", amw))
			if _, err := f.r.reconcileVanished(context.Background(), "web"); err != nil {
				t.Fatal(err)
			}
			if got := f.appliedWork(t, amw.Name).Status.EvictionStartTime != nil; got != tc.wantStart {
				t.Errorf("eviction started: %v, want %v", got, tc.wantStart)
			}
		})
	}
}
