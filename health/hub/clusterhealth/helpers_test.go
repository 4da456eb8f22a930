package clusterhealth

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// fakeCache is a cache.Cache that reads from a fake client.
type fakeCache struct{ client.Client }

var _ cache.Cache = fakeCache{}

func (fakeCache) GetInformer(context.Context, client.Object, ...cache.InformerGetOption) (cache.Informer, error) {
	return nil, nil
}
func (fakeCache) GetInformerForKind(context.Context, schema.GroupVersionKind, ...cache.InformerGetOption) (cache.Informer, error) {
	return nil, nil
}
func (fakeCache) RemoveInformer(context.Context, client.Object) error { return nil }
func (fakeCache) Start(context.Context) error                         { return nil }
func (fakeCache) WaitForCacheSync(context.Context) bool               { return true }
func (fakeCache) IndexField(context.Context, client.Object, string, client.IndexerFunc) error {
	return nil
}

func reconcileRequest(name string) ctrl.Request {
	return ctrl.Request{NamespacedName: types.NamespacedName{Name: name}}
}
