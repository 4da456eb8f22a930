package managedcluster

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/corral-dev/corral/internal/fieldpatch"
	"github.com/corral-dev/corral/internal/testing/builder"
	"github.com/corral-dev/corral/registration/common"
)

var now = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func scheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := clusterv1.Install(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// c1 is the cluster the tests reconcile, at generation 1.
func c1() *builder.ClusterBuilder { return builder.Cluster("c1").Generation(1) }

// wasAccepted is the condition of a cluster the hub accepted once.
var wasAccepted = metav1.Condition{Type: clusterv1.ManagedClusterConditionHubAccepted, Status: metav1.ConditionTrue, Reason: ReasonAccepted}

func ownNamespace() *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "c1", Labels: clusterLabels("c1")}}
}

// newFakeClient is a fake client holding objs, with ManagedCluster status
// as a subresource.
func newFakeClient(t *testing.T, objs ...client.Object) client.Client {
	return fake.NewClientBuilder().WithScheme(scheme(t)).WithObjects(objs...).
		WithStatusSubresource(&clusterv1.ManagedCluster{}).
		WithInterceptorFuncs(interceptor.Funcs{Patch: fieldpatch.AsAPIServer, SubResourcePatch: statusAsAPIServer}).Build()
}

// statusAsAPIServer patches a status as the API server does: a failed
// JSON patch test is Invalid (see fieldpatch.AsAPIServer).
func statusAsAPIServer(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	err := c.SubResource(sub).Patch(ctx, obj, patch, opts...)
	var status apierrors.APIStatus
	if err != nil && patch.Type() == types.JSONPatchType && !errors.As(err, &status) {
		return apierrors.NewInvalid(schema.GroupKind{Group: clusterv1.GroupName, Kind: "ManagedCluster"}, obj.GetName(), nil)
	}
	return err
}

// acceptedFootprint is what an accepted cluster must have on the hub.
func acceptedFootprint() map[client.Object]bool {
	return map[client.Object]bool{
		ownNamespace(): true,
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: clusterRoleName("c1")}}:                                  true,
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: clusterRoleName("c1")}}:                           true,
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: roleBindingName("c1", "registration")}}: true,
		&coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: common.LeaseName}}:                    true,
	}
}

func TestReconcile(t *testing.T) {
	cases := map[string]struct {
		cluster  *clusterv1.ManagedCluster
		existing []client.Object
		// what must exist (true) or not (false) afterwards
		wantObjects   map[client.Object]bool
		wantFinalizer bool
		// when set, exactly these finalizers
		wantFinalizers []string
		wantCondition  *metav1.ConditionStatus
		wantGone       bool
		wantRequeue    bool
	}{
		"an accepted cluster gets the finalizer, then namespace, RBAC, lease and condition in the same reconcile": {
			cluster:       c1().Accepted().Obj(),
			wantObjects:   acceptedFootprint(),
			wantFinalizer: true,
			wantCondition: ptr.To(metav1.ConditionTrue),
		},
		"an accepted cluster with the finalizer gets namespace, RBAC, lease and condition": {
			cluster:       c1().Accepted().Finalizer(clusterv1.ManagedClusterFinalizer).Obj(),
			wantObjects:   acceptedFootprint(),
			wantFinalizer: true,
			wantCondition: ptr.To(metav1.ConditionTrue),
		},
		"an accepted cluster keeps the finalizers others put on it": {
			cluster:        c1().Accepted().Finalizer("example.com/other").Obj(),
			wantObjects:    acceptedFootprint(),
			wantFinalizer:  true,
			wantFinalizers: []string{"example.com/other", clusterv1.ManagedClusterFinalizer},
			wantCondition:  ptr.To(metav1.ConditionTrue),
		},
		"a pending cluster gets no namespace and no condition": {
			cluster:       c1().Finalizer(clusterv1.ManagedClusterFinalizer).Obj(),
			wantObjects:   map[client.Object]bool{ownNamespace(): false},
			wantFinalizer: true,
		},
		"a denied cluster loses its RBAC and gets the condition False": {
			cluster: c1().Finalizer(clusterv1.ManagedClusterFinalizer).Condition(wasAccepted).Obj(),
			existing: []client.Object{
				ownNamespace(),
				&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: clusterRoleName("c1")}},
				&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: roleBindingName("c1", "registration")}},
			},
			wantObjects: map[client.Object]bool{
				ownNamespace(): true,
				&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: clusterRoleName("c1")}}:                           false,
				&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: roleBindingName("c1", "registration")}}: false,
			},
			wantFinalizer: true,
			wantCondition: ptr.To(metav1.ConditionFalse),
		},
		"a deleted cluster keeps its finalizer while its namespace goes": {
			cluster:       c1().Accepted().Finalizer(clusterv1.ManagedClusterFinalizer).Deleting(now).Obj(),
			existing:      []client.Object{ownNamespace()},
			wantObjects:   map[client.Object]bool{ownNamespace(): false},
			wantFinalizer: true,
			wantRequeue:   true,
		},
		"a deleted cluster whose namespace is gone is released": {
			cluster:  c1().Accepted().Finalizer(clusterv1.ManagedClusterFinalizer).Deleting(now).Obj(),
			wantGone: true,
		},
		"a deleted cluster whose namespace is gone keeps the finalizers of others": {
			cluster:        c1().Accepted().Finalizer("example.com/other").Finalizer(clusterv1.ManagedClusterFinalizer).Deleting(now).Obj(),
			wantFinalizers: []string{"example.com/other"},
		},
		"a deleted cluster does not delete a namespace that is not its own": {
			cluster:     c1().Accepted().Finalizer(clusterv1.ManagedClusterFinalizer).Deleting(now).Obj(),
			existing:    []client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "c1"}}},
			wantObjects: map[client.Object]bool{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "c1"}}: true},
			wantGone:    true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			c := newFakeClient(t, append(tc.existing, tc.cluster)...)
			r := &Reconciler{Client: c, Clock: clocktesting.NewFakePassiveClock(now)}

			res, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(tc.cluster)})
			if err != nil {
				t.Fatalf("Reconcile() = %v", err)
			}
			if got := res.RequeueAfter > 0; got != tc.wantRequeue {
				t.Errorf("requeue = %v, want %t", res.RequeueAfter, tc.wantRequeue)
			}
			for obj, want := range tc.wantObjects {
				err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj)
				if got := err == nil; got != want {
					t.Errorf("%T %s exists = %t (%v), want %t", obj, client.ObjectKeyFromObject(obj), got, err, want)
				}
			}
			got := &clusterv1.ManagedCluster{}
			err = c.Get(ctx, client.ObjectKeyFromObject(tc.cluster), got)
			if tc.wantGone {
				if !apierrors.IsNotFound(err) {
					t.Errorf("the cluster should be gone, Get = %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if has := slices.Contains(got.Finalizers, clusterv1.ManagedClusterFinalizer); has != tc.wantFinalizer {
				t.Errorf("finalizer present = %t, want %t", has, tc.wantFinalizer)
			}
			if tc.wantFinalizers != nil {
				if diff := cmp.Diff(tc.wantFinalizers, got.Finalizers); diff != "" {
					t.Errorf("finalizers (-want +got):\n%s", diff)
				}
			}
			cond := meta.FindStatusCondition(got.Status.Conditions, clusterv1.ManagedClusterConditionHubAccepted)
			var gotStatus *metav1.ConditionStatus
			if cond != nil {
				gotStatus = &cond.Status
			}
			if diff := cmp.Diff(tc.wantCondition, gotStatus); diff != "" {
				t.Errorf("HubAccepted condition status (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAddFinalizerWhenFinalizersChangedMeanwhile(t *testing.T) {
	ctx := context.Background()
	stored := c1().Accepted().Finalizer("example.com/other").Obj()
	c := newFakeClient(t, stored)
	r := &Reconciler{Client: c, Clock: clocktesting.NewFakePassiveClock(now)}
	read := &clusterv1.ManagedCluster{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(stored), read); err != nil {
		t.Fatal(err)
	}
	read.Finalizers = nil // what a stale cache would have shown
	s := &scope{cluster: read, original: read.DeepCopy()}

	res, err := r.addFinalizer(ctx, s)
	if err != nil {
		t.Fatalf("addFinalizer() = %v, want a retry without an error", err)
	}
	if !res.Stop || res.RequeueAfter == 0 {
		t.Errorf("result = %+v, want the list stopped and a retry", res)
	}
	got := &clusterv1.ManagedCluster{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(stored), got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"example.com/other"}, got.Finalizers); diff != "" {
		t.Errorf("finalizers (-want +got):\n%s", diff)
	}
}

func TestAddFinalizerAndFirstTaints(t *testing.T) {
	available := metav1.Condition{Type: clusterv1.ManagedClusterConditionAvailable, Status: metav1.ConditionTrue, Reason: "R"}
	refuseTaints := func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
		if data, _ := patch.Data(obj); strings.Contains(string(data), "/spec/taints") {
			return apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", "test failed", 0, false)
		}
		return c.Patch(ctx, obj, patch, opts...)
	}
	cases := map[string]struct {
		cluster     *clusterv1.ManagedCluster
		patch       func(context.Context, client.WithWatch, client.Object, client.Patch, ...client.PatchOption) error
		wantTaints  []string
		wantPatches int
	}{
		"a new cluster gets its finalizer and its unreachable taint in one write": {
			cluster: c1().Obj(), wantTaints: []string{clusterv1.ManagedClusterTaintUnreachable}, wantPatches: 1,
		},
		"a cluster already available gets the finalizer alone": {
			cluster: c1().Condition(available).Obj(), wantPatches: 1,
		},
		"a cluster whose taints are not as read gets the finalizer alone, the taints are the taint controller's": {
			cluster: c1().Obj(), patch: refuseTaints, wantPatches: 2,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			patches := 0
			intercept := tc.patch
			if intercept == nil {
				intercept = fieldpatch.AsAPIServer
			}
			c := fake.NewClientBuilder().WithScheme(scheme(t)).WithObjects(tc.cluster).
				WithInterceptorFuncs(interceptor.Funcs{Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
					patches++
					return intercept(ctx, c, obj, patch, opts...)
				}}).Build()
			r := &Reconciler{Client: c, Clock: clocktesting.NewFakePassiveClock(now)}
			read := &clusterv1.ManagedCluster{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(tc.cluster), read); err != nil {
				t.Fatal(err)
			}

			res, err := r.addFinalizer(ctx, &scope{cluster: read, original: read.DeepCopy()})
			if err != nil || res.Stop {
				t.Fatalf("addFinalizer() = %+v, %v; want to go on", res, err)
			}
			got := &clusterv1.ManagedCluster{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(tc.cluster), got); err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(got.Finalizers, clusterv1.ManagedClusterFinalizer) {
				t.Errorf("finalizers = %v, want the cleanup finalizer", got.Finalizers)
			}
			var keys []string
			for _, taint := range got.Spec.Taints {
				keys = append(keys, taint.Key)
			}
			if diff := cmp.Diff(tc.wantTaints, keys); diff != "" {
				t.Errorf("taints (-want +got):\n%s", diff)
			}
			if patches != tc.wantPatches {
				t.Errorf("%d patches, want %d", patches, tc.wantPatches)
			}
		})
	}
}

func TestReconcileWhenAcceptedMeanwhile(t *testing.T) {
	ctx := context.Background()
	pending := c1().Obj()
	// The admin accepts the cluster just before the finalizer patch lands:
	// the patch returns the cluster accepted.
	acceptFirst := func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
		mc := &clusterv1.ManagedCluster{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(obj), mc); err != nil {
			return err
		}
		if !mc.Spec.HubAcceptsClient {
			mc.Spec.HubAcceptsClient = true
			if err := c.Update(ctx, mc); err != nil {
				return err
			}
		}
		return fieldpatch.AsAPIServer(ctx, c, obj, patch, opts...)
	}
	c := fake.NewClientBuilder().WithScheme(scheme(t)).WithObjects(pending).
		WithStatusSubresource(&clusterv1.ManagedCluster{}).
		WithInterceptorFuncs(interceptor.Funcs{Patch: acceptFirst, SubResourcePatch: statusAsAPIServer}).Build()
	r := &Reconciler{Client: c, Clock: clocktesting.NewFakePassiveClock(now)}

	res, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(pending)})
	if err != nil {
		t.Fatalf("Reconcile() = %v", err)
	}
	if res.RequeueAfter == 0 {
		t.Errorf("result = %+v, want a look again soon", res)
	}
	got := &clusterv1.ManagedCluster{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(pending), got); err != nil {
		t.Fatal(err)
	}
	if cond := meta.FindStatusCondition(got.Status.Conditions, clusterv1.ManagedClusterConditionHubAccepted); cond != nil {
		t.Errorf("HubAccepted = %+v before anything was made for the cluster; want it left to the next reconcile", cond)
	}
	if !slices.Contains(got.Finalizers, clusterv1.ManagedClusterFinalizer) {
		t.Errorf("finalizers = %v, want the cleanup finalizer", got.Finalizers)
	}
}

// TestUpdateStatusKeepsTheAgentsConditions: the agent writes its
// conditions just before the hub's accept condition lands, with or without
// earlier conditions: the hub's write fails rather than lose them, and
// the next reconcile writes its condition beside them.
func TestUpdateStatusKeepsTheAgentsConditions(t *testing.T) {
	joined := metav1.Condition{Type: clusterv1.ManagedClusterConditionJoined, Status: metav1.ConditionTrue, Reason: "Joined", LastTransitionTime: metav1.NewTime(now)}
	available := metav1.Condition{Type: clusterv1.ManagedClusterConditionAvailable, Status: metav1.ConditionTrue, Reason: "Available", LastTransitionTime: metav1.NewTime(now)}
	for name, before := range map[string][]metav1.Condition{"no conditions yet": nil, "some conditions": {joined}} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			mc := c1().Accepted().Finalizer(clusterv1.ManagedClusterFinalizer).Obj()
			mc.Status.Conditions = before
			agentWrote := false
			agentFirst := func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
				if !agentWrote {
					agentWrote = true
					current := &clusterv1.ManagedCluster{}
					if err := c.Get(ctx, client.ObjectKeyFromObject(obj), current); err != nil {
						return err
					}
					current.Status.Conditions = append(slices.Clone(before), available)
					if err := c.Status().Update(ctx, current); err != nil {
						return err
					}
				}
				return statusAsAPIServer(ctx, c, sub, obj, patch, opts...)
			}
			c := fake.NewClientBuilder().WithScheme(scheme(t)).WithObjects(mc).WithStatusSubresource(&clusterv1.ManagedCluster{}).
				WithInterceptorFuncs(interceptor.Funcs{Patch: fieldpatch.AsAPIServer, SubResourcePatch: agentFirst}).Build()
			r := &Reconciler{Client: c, Clock: clocktesting.NewFakePassiveClock(now)}
			req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(mc)}

			res, err := r.Reconcile(ctx, req)
			if err != nil || res.RequeueAfter == 0 {
				t.Fatalf("Reconcile() = %+v, %v; want a look again soon", res, err)
			}
			if _, err := r.Reconcile(ctx, req); err != nil {
				t.Fatalf("second Reconcile() = %v", err)
			}
			got := &clusterv1.ManagedCluster{}
			if err := c.Get(ctx, req.NamespacedName, got); err != nil {
				t.Fatal(err)
			}
			for _, typ := range []string{clusterv1.ManagedClusterConditionAvailable, clusterv1.ManagedClusterConditionHubAccepted} {
				if !meta.IsStatusConditionTrue(got.Status.Conditions, typ) {
					t.Errorf("conditions = %+v, want %s True", got.Status.Conditions, typ)
				}
			}
		})
	}
}

// TestReconcileRefusesANameNotItsOwn: a cluster whose name is reserved, or
// whose namespace exists and is another's, is not accepted, says why, and
// neither takes over nor (denied or deleted) deletes what that name
// already names.
func TestReconcileRefusesANameNotItsOwn(t *testing.T) {
	sharedRole := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: RegistrationClusterRole},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"update"}}}}
	cases := map[string]struct {
		cluster  *clusterv1.ManagedCluster
		existing []client.Object
		reason   string // of the condition; "" for none
		keep     client.Object
	}{
		"a namespace of that name, not a cluster's": {
			cluster: c1().Accepted().Finalizer(clusterv1.ManagedClusterFinalizer).Obj(), existing: []client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "c1"}}},
			reason: ReasonNotAllowed, keep: &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "c1"}},
		},
		"a namespace labelled as another cluster's": {
			cluster: c1().Accepted().Finalizer(clusterv1.ManagedClusterFinalizer).Obj(), existing: []client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "c1", Labels: clusterLabels("c2")}}},
			reason: ReasonNotAllowed, keep: &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "c1", Labels: clusterLabels("c2")}},
		},
		"the name of the role every cluster shares": {
			cluster: builder.Cluster("registration").Generation(1).Accepted().Finalizer(clusterv1.ManagedClusterFinalizer).Obj(), existing: []client.Object{sharedRole.DeepCopy()},
			reason: ReasonNotAllowed, keep: sharedRole.DeepCopy(),
		},
		"that name denied": {
			cluster: builder.Cluster("registration").Generation(1).Finalizer(clusterv1.ManagedClusterFinalizer).Condition(wasAccepted).Obj(), existing: []client.Object{sharedRole.DeepCopy()},
			reason: ReasonDenied, keep: sharedRole.DeepCopy(),
		},
		"that name deleted": {
			cluster: builder.Cluster("registration").Generation(1).Accepted().Finalizer(clusterv1.ManagedClusterFinalizer).Deleting(now).Obj(), existing: []client.Object{sharedRole.DeepCopy()},
			keep: sharedRole.DeepCopy(),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			c := newFakeClient(t, append(tc.existing, tc.cluster)...)
			r := &Reconciler{Client: c, Clock: clocktesting.NewFakePassiveClock(now)}
			if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(tc.cluster)}); err != nil {
				t.Fatalf("Reconcile() = %v", err)
			}
			kept := tc.keep.DeepCopyObject().(client.Object)
			if err := c.Get(ctx, client.ObjectKeyFromObject(tc.keep), kept); err != nil {
				t.Fatalf("%T %s: %v", tc.keep, tc.keep.GetName(), err)
			}
			if diff := cmp.Diff(tc.keep.GetLabels(), kept.GetLabels()); diff != "" {
				t.Errorf("labels of %s changed (-want +got):\n%s", tc.keep.GetName(), diff)
			}
			if role, ok := kept.(*rbacv1.ClusterRole); ok {
				if diff := cmp.Diff(sharedRole.Rules, role.Rules); diff != "" {
					t.Errorf("the shared role's rules changed (-want +got):\n%s", diff)
				}
			}
			for _, obj := range []client.Object{
				&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: tc.cluster.Name, Name: roleBindingName(tc.cluster.Name, "registration")}},
				&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: clusterRoleName(tc.cluster.Name)}},
			} {
				if err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj); !apierrors.IsNotFound(err) {
					t.Errorf("%T %s exists (%v): the cluster was given rights", obj, obj.GetName(), err)
				}
			}
			if tc.reason == "" {
				return
			}
			got := &clusterv1.ManagedCluster{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(tc.cluster), got); err != nil {
				t.Fatal(err)
			}
			cond := meta.FindStatusCondition(got.Status.Conditions, clusterv1.ManagedClusterConditionHubAccepted)
			if cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != tc.reason {
				t.Errorf("HubAccepted condition %+v, want False with reason %s", cond, tc.reason)
			}
		})
	}
}
