package selector

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	fakediscovery "k8s.io/client-go/discovery/fake"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/revisionindex"
)

const ns = "shop"

// mapper knows Deployments, ConfigMaps, Namespaces and ClusterRoles, as a
// hub does.
func mapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(rbacv1.SchemeGroupVersion.WithKind("ClusterRole"), meta.RESTScopeRoot)
	m.Add(appsv1.SchemeGroupVersion.WithKind("Deployment"), meta.RESTScopeNamespace)
	m.Add(corev1.SchemeGroupVersion.WithKind("ConfigMap"), meta.RESTScopeNamespace)
	m.Add(corev1.SchemeGroupVersion.WithKind("Namespace"), meta.RESTScopeRoot)
	return m
}

// discoveryOf serves Deployments, ConfigMaps, Events (never brought) and
// Namespaces.
func discoveryOf() *fakediscovery.FakeDiscovery {
	verbs := metav1.Verbs{"get", "list", "watch", "create"}
	return &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{Resources: []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{
			{Name: "configmaps", Kind: "ConfigMap", Namespaced: true, Verbs: verbs},
			{Name: "events", Kind: "Event", Namespaced: true, Verbs: verbs},
			{Name: "namespaces", Kind: "Namespace", Verbs: verbs},
		}},
		{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{
			{Name: "deployments", Kind: "Deployment", Namespaced: true, Verbs: verbs},
			{Name: "deployments/status", Kind: "Deployment", Namespaced: true, Verbs: metav1.Verbs{"get", "update"}},
		}},
	}}}
}

func scheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := v1alpha1.Install(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// reconciler is a Reconciler over a fake client holding objs.
func reconciler(t *testing.T, objs ...client.Object) *Reconciler {
	t.Helper()
	c := fake.NewClientBuilder().WithScheme(scheme(t)).WithRESTMapper(mapper()).
		WithObjects(objs...).
		WithIndex(&v1alpha1.PropagationRevision{}, revisionindex.Field, revisionindex.KeyOf).
		WithIndex(&v1alpha1.ClusterPropagationRevision{}, revisionindex.Field, revisionindex.KeyOf).
		WithStatusSubresource(&v1alpha1.Propagation{}, &v1alpha1.ClusterPropagation{}).Build()
	return &Reconciler{Client: c, Reader: c, Mapper: mapper(), Discovery: discoveryOf()}
}

// loaded is the scope of the propagation named name (in ns if namespaced).
func loaded(t *testing.T, r *Reconciler, namespace, name string) *scope {
	t.Helper()
	s, err := r.load(context.Background(), ctrl.Request{NamespacedName: types.NamespacedName{Namespace: namespace, Name: name}})
	if err != nil || s == nil {
		t.Fatalf("loading %s/%s: %v", namespace, name, err)
	}
	return s
}

func sel(group, version, kind string) v1alpha1.ResourceSelector {
	return v1alpha1.ResourceSelector{Group: group, Version: version, Kind: kind}
}

func named(s v1alpha1.ResourceSelector, name string) v1alpha1.ResourceSelector {
	s.Name = name
	return s
}

func labelled(s v1alpha1.ResourceSelector, labels map[string]string) v1alpha1.ResourceSelector {
	s.LabelSelector = &metav1.LabelSelector{MatchLabels: labels}
	return s
}

func propagation(sels ...v1alpha1.ResourceSelector) *v1alpha1.Propagation {
	return &v1alpha1.Propagation{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web", Generation: 3, UID: "uid-web"},
		Spec: v1alpha1.PropagationSpec{ResourceSelectors: sels, PlacementRefs: []v1alpha1.LocalPlacementReference{{Name: "all"}},
			PropagationPolicy: v1alpha1.PropagationPolicy{RevisionHistoryLimit: ptr.To[int32](10)}},
	}
}

func clusterPropagation(sels ...v1alpha1.ClusterResourceSelector) *v1alpha1.ClusterPropagation {
	return &v1alpha1.ClusterPropagation{
		ObjectMeta: metav1.ObjectMeta{Name: "shop", Generation: 1, UID: "uid-shop"},
		Spec:       v1alpha1.ClusterPropagationSpec{ResourceSelectors: sels, PlacementRefs: []v1alpha1.PlacementReference{{Namespace: "x", LocalPlacementReference: v1alpha1.LocalPlacementReference{Name: "all"}}}},
	}
}

func deployment(namespace, name string, labels map[string]string) *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](2)}}
}

func configMap(namespace, name string, labels map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels}, Data: map[string]string{"k": name}}
}

func namespace(name string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"team": "a"}}}
}

// envelope is an envelope ConfigMap of data.
func envelope(namespace, name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name,
		Labels: map[string]string{v1alpha1.LabelEnvelope: "true"}}, Data: data}
}
