package override

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

func revisionObjects(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, raw := range []string{
		`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop"}}`,
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop","labels":{"tier":"front"}}}`,
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"api","namespace":"shop"}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web","namespace":"shop"}}`,
	} {
		out = append(out, &unstructured.Unstructured{Object: object(t, raw)})
	}
	return out
}

var deployments = v1alpha1.ResourceSelector{Group: "apps", Version: "v1", Kind: "Deployment"}

func rules(label string) []v1alpha1.OverrideRule {
	return []v1alpha1.OverrideRule{{SetLabels: map[string]string{"by": label}}}
}

func TestSnapshot(t *testing.T) {
	named := deployments
	named.Name = "web"
	front := deployments
	front.Version = "v1beta2" // any version selects
	front.LabelSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "front"}}
	policies := []v1alpha1.OverridePolicy{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "z-web"}, Spec: v1alpha1.OverridePolicySpec{
			ResourceSelectors: []v1alpha1.ResourceSelector{named}, Overrides: v1alpha1.Overrides{Rules: rules("z-web")}}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "a-front"}, Spec: v1alpha1.OverridePolicySpec{
			ResourceSelectors: []v1alpha1.ResourceSelector{front}, Overrides: v1alpha1.Overrides{Priority: 9, Rules: rules("a-front")}}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "all-deployments"}, Spec: v1alpha1.OverridePolicySpec{
			ResourceSelectors: []v1alpha1.ResourceSelector{deployments}, Overrides: v1alpha1.Overrides{Rules: rules("all")}}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "elsewhere"}, Spec: v1alpha1.OverridePolicySpec{
			ResourceSelectors: []v1alpha1.ResourceSelector{deployments}, Overrides: v1alpha1.Overrides{Rules: rules("other")}}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "secrets"}, Spec: v1alpha1.OverridePolicySpec{
			ResourceSelectors: []v1alpha1.ResourceSelector{{Version: "v1", Kind: "Secret"}}, Overrides: v1alpha1.Overrides{Rules: rules("secrets")}}},
	}
	clusterPolicies := []v1alpha1.ClusterOverridePolicy{
		{ObjectMeta: metav1.ObjectMeta{Name: "namespaces"}, Spec: v1alpha1.ClusterOverridePolicySpec{
			ResourceSelectors: []v1alpha1.ClusterOverrideResourceSelector{{ResourceSelector: v1alpha1.ResourceSelector{Version: "v1", Kind: "Namespace"}}},
			Overrides:         v1alpha1.Overrides{Priority: 100, Rules: rules("namespaces")}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "other-namespace"}, Spec: v1alpha1.ClusterOverridePolicySpec{
			ResourceSelectors: []v1alpha1.ClusterOverrideResourceSelector{{ResourceSelector: deployments, Namespace: "other"}},
			Overrides:         v1alpha1.Overrides{Rules: rules("cluster-other")}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "shop-config"}, Spec: v1alpha1.ClusterOverridePolicySpec{
			ResourceSelectors: []v1alpha1.ClusterOverrideResourceSelector{{ResourceSelector: v1alpha1.ResourceSelector{Version: "v1", Kind: "ConfigMap"}, Namespace: "shop"}},
			Overrides:         v1alpha1.Overrides{Rules: rules("shop-config")}}},
	}
	got, err := Snapshot(revisionObjects(t), policies, clusterPolicies)
	if err != nil {
		t.Fatal(err)
	}
	want := []v1alpha1.OverrideSnapshot{
		{Name: "shop-config", ClusterScoped: true, Objects: []int32{3}, Rules: rules("shop-config")},
		{Name: "namespaces", ClusterScoped: true, Priority: 100, Objects: []int32{0}, Rules: rules("namespaces")},
		{Name: "shop/all-deployments", Objects: []int32{1, 2}, Rules: rules("all")},
		{Name: "shop/z-web", Objects: []int32{1}, Rules: rules("z-web")},
		{Name: "shop/a-front", Priority: 9, Objects: []int32{1}, Rules: rules("a-front")},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Snapshot (-want +got):\n%s", diff)
	}
}

func TestSnapshotRefusesABadLabelSelector(t *testing.T) {
	bad := deployments
	bad.LabelSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: "Near"}}}
	_, err := Snapshot(revisionObjects(t), []v1alpha1.OverridePolicy{{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "p"},
		Spec: v1alpha1.OverridePolicySpec{ResourceSelectors: []v1alpha1.ResourceSelector{bad}, Overrides: v1alpha1.Overrides{Rules: rules("x")}}}}, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "OverridePolicy shop/p: resource selector Deployment") {
		t.Errorf("Snapshot: %v, want an error naming the policy and its selector", err)
	}
}
