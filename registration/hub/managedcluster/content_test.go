package managedcluster

import (
	"context"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/corral-dev/corral/internal/fieldpatch"
	"github.com/corral-dev/corral/internal/testing/builder"
)

// heartbeating is the condition of a cluster whose agent renews its lease.
var heartbeating = metav1.Condition{Type: clusterv1.ManagedClusterConditionAvailable, Status: metav1.ConditionTrue, Reason: "ManagedClusterAvailable"}

func contentClient(t *testing.T, objs ...client.Object) client.Client {
	s := scheme(t)
	for _, install := range []func(*runtime.Scheme) error{addonv1alpha1.Install, workv1.Install} {
		if err := install(s); err != nil {
			t.Fatal(err)
		}
	}
	return fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).
		WithStatusSubresource(&clusterv1.ManagedCluster{}).
		WithInterceptorFuncs(interceptor.Funcs{Patch: fieldpatch.AsAPIServer, SubResourcePatch: statusAsAPIServer}).Build()
}

// exists says whether obj is still there, and whether it is being deleted.
func exists(t *testing.T, c client.Client, obj client.Object) (there, deleting bool) {
	t.Helper()
	err := c.Get(context.Background(), client.ObjectKeyFromObject(obj), obj)
	if apierrors.IsNotFound(err) {
		return false, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return true, !obj.GetDeletionTimestamp().IsZero()
}

func deletingCondition(t *testing.T, c client.Client) *metav1.Condition {
	t.Helper()
	mc := &clusterv1.ManagedCluster{}
	if err := c.Get(context.Background(), client.ObjectKey{Name: "c1"}, mc); err != nil {
		t.Fatal(err)
	}
	return meta.FindStatusCondition(mc.Status.Conditions, clusterv1.ManagedClusterConditionDeleting)
}

// finalize removes the agent's finalizer, as the agent does once it has
// deleted what the work applied.
func finalize(t *testing.T, c client.Client, w *workv1.ManifestWork) {
	t.Helper()
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(w), w); err != nil {
		t.Fatal(err)
	}
	w.Finalizers = nil
	if err := c.Update(context.Background(), w); err != nil {
		t.Fatal(err)
	}
}

func TestDeleteContentInOrder(t *testing.T) {
	ctx := context.Background()
	placementAddOn, workAddOn := builder.AddOn("c1", "placement").Obj(), builder.AddOn("c1", "work").Obj()
	first := builder.Work("c1", "first").Finalizer(workv1.ManifestWorkFinalizer).Obj()
	last := builder.Work("c1", "last").Finalizer(workv1.ManifestWorkFinalizer).Annotation(clusterv1.CleanupPriorityAnnotationKey, "10").Obj()
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: clusterRoleName("c1")}}
	c := contentClient(t, c1().Accepted().Finalizer(clusterv1.ManagedClusterFinalizer).Deleting(now).Condition(heartbeating).Obj(), ownNamespace(), binding,
		placementAddOn, workAddOn, first, last)
	r := &Reconciler{Client: c, Clock: clocktesting.NewFakePassiveClock(now)}
	reconcile := func() {
		t.Helper()
		res, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Name: "c1"}})
		if err != nil {
			t.Fatalf("Reconcile() = %v", err)
		}
		if res.RequeueAfter == 0 {
			t.Fatalf("Reconcile() = %+v, want a requeue while the cluster is being deleted", res)
		}
	}
	reconcile()
	if there, _ := exists(t, c, placementAddOn); there {
		t.Error("the placement addon should be deleted first")
	}
	if _, deleting := exists(t, c, first); deleting {
		t.Error("no work should be deleted before the addons other than work are gone")
	}

	reconcile()
	if _, deleting := exists(t, c, first); !deleting {
		t.Error("the work of the lowest cleanup priority should be deleted once the addons are gone")
	}
	if _, deleting := exists(t, c, last); deleting {
		t.Error("the work of cleanup priority 10 should wait for the one of priority 0")
	}
	cond := deletingCondition(t, c)
	if cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != clusterv1.ConditionDeletingReasonResourceRemaining ||
		!strings.Contains(cond.Message, "2 ManifestWorks left") || !strings.Contains(cond.Message, "first ("+workv1.ManifestWorkFinalizer+")") ||
		!strings.Contains(cond.Message, "remove the finalizer by hand") {
		t.Errorf("Deleting condition = %+v, want False, %s, saying which works are left and their finalizers", cond, clusterv1.ConditionDeletingReasonResourceRemaining)
	}

	reconcile()
	if there, _ := exists(t, c, first); !there {
		t.Error("the hub should leave the finalizer of a heartbeating agent's work alone")
	}
	if there, _ := exists(t, c, binding); !there {
		t.Error("the cluster's RBAC should stay while its agent has works to finalize")
	}

	finalize(t, c, first)
	reconcile()
	if _, deleting := exists(t, c, last); !deleting {
		t.Error("the work of priority 10 should be deleted once the one of priority 0 is gone")
	}
	if there, _ := exists(t, c, workAddOn); !there {
		t.Error("the work addon should stay while works are left")
	}

	finalize(t, c, last)
	reconcile()
	if there, _ := exists(t, c, workAddOn); there {
		t.Error("the work addon should be deleted once the works are gone")
	}

	reconcile()
	if cond := deletingCondition(t, c); cond == nil || cond.Status != metav1.ConditionTrue || cond.Reason != clusterv1.ConditionDeletingReasonNoResource {
		t.Errorf("Deleting condition = %+v, want True, %s", cond, clusterv1.ConditionDeletingReasonNoResource)
	}
	if there, _ := exists(t, c, binding); there {
		t.Error("the cluster's RBAC should go once its namespace holds no addons or works")
	}
}

func TestDeleteContentReleasesTheWorksOfAnAgentGone(t *testing.T) {
	ctx := context.Background()
	w := builder.Work("c1", "w").Finalizer(workv1.ManifestWorkFinalizer).Obj()
	c := contentClient(t, c1().Accepted().Finalizer(clusterv1.ManagedClusterFinalizer).Deleting(now).Obj(), ownNamespace(), w)
	recorder := events.NewFakeRecorder(4)
	r := &Reconciler{Client: c, Clock: clocktesting.NewFakePassiveClock(now), Recorder: recorder}

	for range 2 { // the first deletes it, the next releases it
		if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Name: "c1"}}); err != nil {
			t.Fatalf("Reconcile() = %v", err)
		}
	}
	if there, _ := exists(t, c, w); there {
		t.Error("the hub should remove the finalizer of a work whose agent does not heartbeat")
	}
	select {
	case e := <-recorder.Events:
		if !strings.Contains(e, ReasonReleased) || !strings.Contains(e, "stays on the cluster") {
			t.Errorf("event = %q, want %s saying what the work applied stays", e, ReasonReleased)
		}
	default:
		t.Error("releasing a work should be told in an event")
	}
}

func TestFirstToDelete(t *testing.T) {
	obj := func(name, priority string) *metav1.PartialObjectMetadata {
		o := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if priority != "" {
			o.Annotations = map[string]string{clusterv1.CleanupPriorityAnnotationKey: priority}
		}
		return o
	}
	cases := map[string]struct {
		items []*metav1.PartialObjectMetadata
		want  []string
	}{
		"none annotated: all at once":           {[]*metav1.PartialObjectMetadata{obj("a", ""), obj("b", "")}, []string{"a", "b"}},
		"the lowest priority first":             {[]*metav1.PartialObjectMetadata{obj("a", "50"), obj("b", "20"), obj("c", "20")}, []string{"b", "c"}},
		"those without one before 0":            {[]*metav1.PartialObjectMetadata{obj("a", "0"), obj("b", "")}, []string{"b"}},
		"those without one before invalid ones": {[]*metav1.PartialObjectMetadata{obj("a", "101"), obj("b", "-1"), obj("c", "")}, []string{"c"}},
		"invalid ones (outside 0..100, not a number) before 0": {
			[]*metav1.PartialObjectMetadata{obj("a", "101"), obj("b", "soon"), obj("c", "0"), obj("d", "-1")}, []string{"a", "b", "d"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, o := range firstToDelete(tc.items) {
				got = append(got, o.Name)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("firstToDelete = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAgentCanFinalize(t *testing.T) {
	available := func(s metav1.ConditionStatus) metav1.Condition {
		return metav1.Condition{Type: clusterv1.ManagedClusterConditionAvailable, Status: s, Reason: "Test"}
	}
	cases := map[string]struct {
		cluster *clusterv1.ManagedCluster
		want    bool
	}{
		"heartbeating":                          {c1().Accepted().Condition(available(metav1.ConditionTrue)).Obj(), true},
		"heartbeating, its API server down":     {c1().Accepted().Condition(available(metav1.ConditionFalse)).Obj(), true},
		"its lease stale":                       {c1().Accepted().Condition(available(metav1.ConditionUnknown)).Obj(), false},
		"never reported":                        {c1().Accepted().Obj(), false},
		"denied: its RBAC revoked":              {c1().Condition(available(metav1.ConditionTrue)).Obj(), false},
		"denied and stale: nothing to wait for": {c1().Condition(available(metav1.ConditionUnknown)).Obj(), false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := agentCanFinalize(tc.cluster); got != tc.want {
				t.Errorf("agentCanFinalize = %t, want %t", got, tc.want)
			}
		})
	}
}

func TestDeleteContentLeavesANamespaceNotItsOwn(t *testing.T) {
	ctx := context.Background()
	notOurs := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "c1"}}
	a, w := builder.AddOn("c1", "placement").Obj(), builder.Work("c1", "w").Finalizer(workv1.ManifestWorkFinalizer).Obj()
	c := contentClient(t, c1().Accepted().Finalizer(clusterv1.ManagedClusterFinalizer).Deleting(now).Obj(), notOurs, a, w)
	r := &Reconciler{Client: c, Clock: clocktesting.NewFakePassiveClock(now)}
	if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Name: "c1"}}); err != nil {
		t.Fatalf("Reconcile() = %v", err)
	}
	for _, obj := range []client.Object{a, w} {
		if there, deleting := exists(t, c, obj); !there || deleting {
			t.Errorf("%T %s in a namespace that is not the cluster's: exists %t, being deleted %t; want untouched", obj, obj.GetName(), there, deleting)
		}
	}
	if w.Finalizers == nil {
		t.Error("the work's finalizer in a namespace not the cluster's should stay")
	}
	if there, _ := exists(t, c, c1().Obj()); there {
		t.Error("the cluster should be released: it has nothing of its own to clean up")
	}
}

func TestDeleteContentReleasesTheWorksOfANamespaceGoing(t *testing.T) {
	ctx := context.Background()
	going, w, _ := goingNamespace()
	c := contentClient(t, c1().Accepted().Finalizer(clusterv1.ManagedClusterFinalizer).Deleting(now).Condition(heartbeating).Obj(), going, w)
	r := &Reconciler{Client: c, Clock: clocktesting.NewFakePassiveClock(now)}
	if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Name: "c1"}}); err != nil {
		t.Fatalf("Reconcile() = %v", err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(w), w); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(w.Finalizers, workv1.ManifestWorkFinalizer) {
		t.Errorf("finalizers = %v: once the namespace goes (and the RBAC is gone) the agent cannot remove its finalizer, the hub should", w.Finalizers)
	}
	if !slices.Contains(w.Finalizers, "test/hold") {
		t.Errorf("finalizers = %v: the hub should remove only the work agent's", w.Finalizers)
	}
}

// laggingCache is what the API server's cache shows of the cluster
// namespace when a work was created just before the cluster's deletion:
// nothing yet, while etcd holds the work.
func laggingCache(c client.Client) client.Reader {
	return interceptor.NewClient(c.(client.WithWatch), interceptor.Funcs{
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			o := &client.ListOptions{}
			o.ApplyOptions(opts)
			if o.Raw != nil && o.Raw.ResourceVersion == cachedRead {
				return nil
			}
			return c.List(ctx, list, opts...)
		},
	})
}

func TestDeleteContentConfirmsAnEmptyNamespaceFromEtcd(t *testing.T) {
	ctx := context.Background()
	w := builder.Work("c1", "w").Finalizer(workv1.ManifestWorkFinalizer).Obj()
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: clusterRoleName("c1")}}
	c := contentClient(t, c1().Accepted().Finalizer(clusterv1.ManagedClusterFinalizer).Deleting(now).Condition(heartbeating).Obj(), ownNamespace(), binding, w)
	r := &Reconciler{Client: c, Live: laggingCache(c), Clock: clocktesting.NewFakePassiveClock(now)}
	if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Name: "c1"}}); err != nil {
		t.Fatalf("Reconcile() = %v", err)
	}
	if _, deleting := exists(t, c, w); !deleting {
		t.Error("a work the API server's cache does not show yet should be deleted all the same")
	}
	if there, _ := exists(t, c, binding); !there {
		t.Error("the cluster's RBAC should stay while a work its agent finalizes is left, though the API server's cache shows none")
	}
	if cond := deletingCondition(t, c); cond == nil || cond.Reason != clusterv1.ConditionDeletingReasonResourceRemaining {
		t.Errorf("Deleting condition = %+v, want %s", cond, clusterv1.ConditionDeletingReasonResourceRemaining)
	}
}

// goingNamespace is the cluster namespace as someone deleted it, with a
// work being deleted that its agent finalizes and one that is not being
// deleted yet, both still there.
func goingNamespace() (ns *corev1.Namespace, deleted, live *workv1.ManifestWork) {
	ns = ownNamespace()
	ns.Finalizers, ns.DeletionTimestamp = []string{"test/hold"}, &metav1.Time{Time: now}
	deleted = builder.Work("c1", "deleted").Finalizer(workv1.ManifestWorkFinalizer).Finalizer("test/hold").Deleting(now).Obj()
	live = builder.Work("c1", "live").Finalizer(workv1.ManifestWorkFinalizer).Obj()
	return ns, deleted, live
}

func TestANamespaceDeletedUnderALiveClusterLetsGoOfItsWorks(t *testing.T) {
	for name, mc := range map[string]*clusterv1.ManagedCluster{
		"accepted and heartbeating": c1().Accepted().Finalizer(clusterv1.ManagedClusterFinalizer).Condition(heartbeating).Obj(),
		"denied":                    c1().Finalizer(clusterv1.ManagedClusterFinalizer).Obj(),
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			ns, deleted, live := goingNamespace()
			c := contentClient(t, mc, ns, deleted, live)
			r := &Reconciler{Client: c, Clock: clocktesting.NewFakePassiveClock(now)}
			res, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Name: "c1"}})
			if err != nil {
				t.Fatalf("Reconcile() = %v", err)
			}
			if res.RequeueAfter == 0 {
				t.Errorf("Reconcile() = %+v, want a look again while the namespace goes", res)
			}
			exists(t, c, deleted)
			if slices.Contains(deleted.Finalizers, workv1.ManifestWorkFinalizer) || !slices.Contains(deleted.Finalizers, "test/hold") {
				t.Errorf("finalizers of a work being deleted = %v: the namespace controller took the agent's RBAC, so the hub should remove the agent's finalizer, and only it", deleted.Finalizers)
			}
			exists(t, c, live)
			if !slices.Contains(live.Finalizers, workv1.ManifestWorkFinalizer) {
				t.Errorf("finalizers of a work not being deleted = %v: its agent's should stay", live.Finalizers)
			}
			rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: roleBindingName("c1", "registration")}}
			if there, _ := exists(t, c, rb); there {
				t.Error("nothing should be made in a namespace being deleted: the RoleBinding is made once it is made anew")
			}
		})
	}
}

func TestANamespaceNotGoingKeepsItsWorks(t *testing.T) {
	ctx := context.Background()
	w := builder.Work("c1", "w").Finalizer(workv1.ManifestWorkFinalizer).Obj()
	c := contentClient(t, c1().Accepted().Finalizer(clusterv1.ManagedClusterFinalizer).Condition(heartbeating).Obj(), ownNamespace(), w)
	r := &Reconciler{Client: c, Clock: clocktesting.NewFakePassiveClock(now)}
	if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Name: "c1"}}); err != nil {
		t.Fatalf("Reconcile() = %v", err)
	}
	exists(t, c, w)
	if !slices.Contains(w.Finalizers, workv1.ManifestWorkFinalizer) {
		t.Errorf("finalizers = %v: the agent's finalizer of a work in a live cluster's namespace should stay", w.Finalizers)
	}
}
