package revision

import (
	"cmp"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// firstKinds are delivered first, in this order: what the other objects
// live in or are of (namespaces, CRDs), then cluster policy, identity,
// configuration and storage, RBAC, Services, and the workloads that use
// them.
var firstKinds = []schema.GroupKind{
	{Kind: "Namespace"},
	{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"},
	{Group: "scheduling.k8s.io", Kind: "PriorityClass"},
	{Kind: "ResourceQuota"},
	{Kind: "LimitRange"},
	{Group: "networking.k8s.io", Kind: "NetworkPolicy"},
	{Group: "policy", Kind: "PodDisruptionBudget"},
	{Kind: "ServiceAccount"},
	{Kind: "Secret"},
	{Kind: "ConfigMap"},
	{Group: "storage.k8s.io", Kind: "StorageClass"},
	{Kind: "PersistentVolume"},
	{Kind: "PersistentVolumeClaim"},
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"},
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"},
	{Group: "rbac.authorization.k8s.io", Kind: "Role"},
	{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"},
	{Kind: "Service"},
	{Group: "apps", Kind: "DaemonSet"},
	{Kind: "Pod"},
	{Kind: "ReplicationController"},
	{Group: "apps", Kind: "ReplicaSet"},
	{Group: "apps", Kind: "Deployment"},
	{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"},
	{Group: "apps", Kind: "StatefulSet"},
	{Group: "batch", Kind: "Job"},
	{Group: "batch", Kind: "CronJob"},
	{Group: "networking.k8s.io", Kind: "IngressClass"},
	{Group: "networking.k8s.io", Kind: "Ingress"},
}

// lastKinds are delivered after every other kind, in this order: they
// intercept requests, and would stop the objects before them if their
// backends are not there yet.
var lastKinds = []schema.GroupKind{
	{Group: "apiregistration.k8s.io", Kind: "APIService"},
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicy"},
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicyBinding"},
	{Group: "admissionregistration.k8s.io", Kind: "MutatingAdmissionPolicy"},
	{Group: "admissionregistration.k8s.io", Kind: "MutatingAdmissionPolicyBinding"},
	{Group: "admissionregistration.k8s.io", Kind: "MutatingWebhookConfiguration"},
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingWebhookConfiguration"},
}

// kindRank is the place of each kind: firstKinds, then every other kind
// (otherRank), then lastKinds.
var kindRank, otherRank = func() (map[schema.GroupKind]int, int) {
	rank := make(map[schema.GroupKind]int, len(firstKinds)+len(lastKinds))
	for i, gk := range firstKinds {
		rank[gk] = i
	}
	other := len(firstKinds)
	for i, gk := range lastKinds {
		rank[gk] = other + 1 + i
	}
	return rank, other
}()

func rankOf(gk schema.GroupKind) int {
	if r, ok := kindRank[gk]; ok {
		return r
	}
	return otherRank
}

// Sort sorts objs in place in dependency order: by kind (Namespaces, CRDs,
// the fixed order of firstKinds, other kinds by group and kind, then
// lastKinds), then by namespace, name and API version.
func Sort(objs []*unstructured.Unstructured) {
	slices.SortStableFunc(objs, compare)
}

func compare(a, b *unstructured.Unstructured) int {
	ga, gb := a.GroupVersionKind(), b.GroupVersionKind()
	return cmp.Or(
		cmp.Compare(rankOf(ga.GroupKind()), rankOf(gb.GroupKind())),
		cmp.Compare(ga.Group, gb.Group),
		cmp.Compare(ga.Kind, gb.Kind),
		cmp.Compare(a.GetNamespace(), b.GetNamespace()),
		cmp.Compare(a.GetName(), b.GetName()),
		cmp.Compare(ga.Version, gb.Version),
	)
}
