package managedcluster

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/corral-dev/corral/registration/clientcsr"
)

// writeCounter counts a client's writes by kind of call.
type writeCounter map[string]int

func (w writeCounter) funcs() interceptor.Funcs {
	return interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			w["create"]++
			return c.Create(ctx, obj, opts...)
		},
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			w["apply"]++
			return c.Apply(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			w["patch"]++
			return c.Patch(ctx, obj, patch, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			w["update"]++
			return c.Update(ctx, obj, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			w["delete"]++
			return c.Delete(ctx, obj, opts...)
		},
	}
}

func ownBinding(mutate func(*rbacv1.ClusterRoleBinding)) *rbacv1.ClusterRoleBinding {
	crb := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: clusterRoleName("c1"), Labels: clusterLabels("c1")},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: clusterRoleName("c1")},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: clientcsr.ClusterGroup("c1")}},
	}
	if mutate != nil {
		mutate(crb)
	}
	return crb
}

func TestEnsure(t *testing.T) {
	cases := map[string]struct {
		existing   *rbacv1.ClusterRoleBinding
		wantWrites writeCounter
	}{
		"a missing object is created": {
			wantWrites: writeCounter{"create": 1},
		},
		"an object as desired is not written": {
			existing:   ownBinding(nil),
			wantWrites: writeCounter{},
		},
		"labels and fields others set do not count as a difference": {
			existing: ownBinding(func(crb *rbacv1.ClusterRoleBinding) {
				crb.Labels["team"] = "a"
				crb.Annotations = map[string]string{"note": "x"}
			}),
			wantWrites: writeCounter{},
		},
		"an object with other subjects is applied": {
			existing: ownBinding(func(crb *rbacv1.ClusterRoleBinding) {
				crb.Subjects = append(crb.Subjects, rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "mallory"})
			}),
			wantWrites: writeCounter{"apply": 1},
		},
		"an object without its cluster label is applied": {
			existing:   ownBinding(func(crb *rbacv1.ClusterRoleBinding) { crb.Labels = nil }),
			wantWrites: writeCounter{"apply": 1},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			writes := writeCounter{}
			b := fake.NewClientBuilder().WithScheme(scheme(t)).WithInterceptorFuncs(writes.funcs())
			if tc.existing != nil {
				b = b.WithObjects(tc.existing)
			}
			r := &Reconciler{Client: b.Build()}

			if err := r.ensure(ctx, clusterRoleBinding("c1")); err != nil {
				t.Fatalf("ensure() = %v", err)
			}
			if diff := cmp.Diff(tc.wantWrites, writes); diff != "" {
				t.Errorf("writes (-want +got):\n%s", diff)
			}
			got := &rbacv1.ClusterRoleBinding{}
			if err := r.Client.Get(ctx, client.ObjectKey{Name: clusterRoleName("c1")}, got); err != nil {
				t.Fatal(err)
			}
			want := ownBinding(nil)
			if got.Labels[clusterv1.ClusterNameLabelKey] != "c1" {
				t.Errorf("labels = %v, want the cluster label", got.Labels)
			}
			if diff := cmp.Diff(want.Subjects, got.Subjects); diff != "" {
				t.Errorf("subjects (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want.RoleRef, got.RoleRef); diff != "" {
				t.Errorf("roleRef (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCovers(t *testing.T) {
	cases := map[string]struct {
		have, want any
		covers     bool
	}{
		"equal scalars":            {have: "a", want: "a", covers: true},
		"different scalars":        {have: "a", want: "b"},
		"a map with more keys":     {have: map[string]any{"a": "1", "b": "2"}, want: map[string]any{"a": "1"}, covers: true},
		"a map missing a key":      {have: map[string]any{"b": "2"}, want: map[string]any{"a": "1"}},
		"a list of another length": {have: []any{"a", "b"}, want: []any{"a"}},
		"a list whose items cover": {have: []any{map[string]any{"a": "1", "x": "y"}}, want: []any{map[string]any{"a": "1"}}, covers: true},
		"a list in another order":  {have: []any{"b", "a"}, want: []any{"a", "b"}},
		"a map where a list is":    {have: map[string]any{}, want: []any{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := covers(tc.have, tc.want); got != tc.covers {
				t.Errorf("covers(%v, %v) = %t, want %t", tc.have, tc.want, got, tc.covers)
			}
		})
	}
}

func TestRevokeRBAC(t *testing.T) {
	cases := map[string]struct {
		existing   []client.Object
		wantWrites writeCounter
	}{
		"a cluster with no RBAC costs no request": {wantWrites: writeCounter{}},
		"what exists is deleted, and only that": {
			existing:   []client.Object{ownBinding(nil)},
			wantWrites: writeCounter{"delete": 1},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			writes := writeCounter{}
			c := fake.NewClientBuilder().WithScheme(scheme(t)).WithObjects(tc.existing...).WithInterceptorFuncs(writes.funcs()).Build()
			r := &Reconciler{Client: c}

			if _, err := r.revokeRBAC(ctx, &scope{cluster: c1().Finalizer(clusterv1.ManagedClusterFinalizer).Obj()}); err != nil {
				t.Fatalf("revokeRBAC() = %v", err)
			}
			if diff := cmp.Diff(tc.wantWrites, writes); diff != "" {
				t.Errorf("writes (-want +got):\n%s", diff)
			}
			for _, obj := range rbacObjects("c1") {
				if err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj); err == nil {
					t.Errorf("%T %s is still there", obj, obj.GetName())
				}
			}
		})
	}
}
