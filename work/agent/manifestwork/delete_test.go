package manifestwork

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/corral-dev/corral/work/agent/appliedwork"
	"github.com/corral-dev/corral/work/agent/apply"
)

// TestReleaseAllAsksTheAPIServerBeforeReleasingNothing checks that a work
// deleted moments after it was applied, whose AppliedManifestWork the
// cache has not seen yet, still has what it applied deleted, rather than
// let go on the cache's word that there is no record.
func TestReleaseAllAsksTheAPIServerBeforeReleasingNothing(t *testing.T) {
	ctx := context.Background()
	scheme := managedScheme(t)
	name := appliedwork.Name("hub", "web")
	amw := &workv1.AppliedManifestWork{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: "amw-uid", Finalizers: []string{workv1.AppliedManifestWorkFinalizer}},
		Status: workv1.AppliedManifestWorkStatus{AppliedResources: []workv1.AppliedManifestResourceMeta{{
			ResourceIdentifier: workv1.ResourceIdentifier{Resource: "configmaps", Namespace: "default", Name: "web"}, Version: "v1", UID: "cm-uid",
		}}},
	}
	server := fake.NewClientBuilder().WithScheme(scheme).WithObjects(amw).WithStatusSubresource(amw).Build()
	// The cache lags: it has no AppliedManifestWork yet.
	lagging := interceptor.NewClient(server, interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if _, ok := obj.(*workv1.AppliedManifestWork); ok {
				return apierrors.NewNotFound(schema.GroupResource{Group: workv1.GroupName, Resource: "appliedmanifestworks"}, key.Name)
			}
			return c.Get(ctx, key, obj, opts...)
		},
	})
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "cm-uid",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: workv1.GroupVersion.String(), Kind: "AppliedManifestWork", Name: name, UID: "amw-uid"}}}}
	dyn := dynamicfake.NewSimpleDynamicClient(scheme, cm)
	r := &Reconciler{opts: Options{HubHash: "hub"}, managed: lagging, live: server, dynamic: dyn,
		applier: apply.NewApplier(dyn), applied: newWriteMemo()}

	for range 3 { // until the record is gone, as the controller would requeue
		if _, err := r.releaseAll(ctx, name, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	_, err := dyn.Resource(corev1.SchemeGroupVersion.WithResource("configmaps")).Namespace("default").Get(ctx, "web", metav1.GetOptions{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("the ConfigMap the work applied is still there (%v): released on the cache's word", err)
	}
	if err := server.Get(ctx, client.ObjectKey{Name: name}, &workv1.AppliedManifestWork{}); !apierrors.IsNotFound(err) {
		t.Errorf("the AppliedManifestWork is still there: %v", err)
	}
}
