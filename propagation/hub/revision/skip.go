package revision

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ownGroups are the API groups, and their subgroups, of OCM and corral:
// the fleet's own machinery, which a propagation must not copy to its
// members.
var ownGroups = []string{"open-cluster-management.io", "corral.dev"}

// Skipped says whether obj must never be selected, even by name, and why:
// it is of OCM's or corral's own API groups, a controller owns it (the
// controller makes it again on the cluster), each cluster makes its own
// (the kube-root-ca.crt ConfigMap, the default ServiceAccount), it is a
// service-account token (valid only on the hub), or it is an Event.
func Skipped(obj *unstructured.Unstructured) (reason string, skipped bool) {
	gk := obj.GroupVersionKind().GroupKind()
	for _, own := range ownGroups {
		if gk.Group == own || strings.HasSuffix(gk.Group, "."+own) {
			return fmt.Sprintf("%s is of the fleet's own API group %s", gk.Kind, gk.Group), true
		}
	}
	if owner := controllerOf(obj); owner != "" {
		return fmt.Sprintf("controlled by %s, which makes it on each cluster", owner), true
	}
	if gk.Group == "events.k8s.io" && gk.Kind == "Event" {
		return "events are not propagated", true
	}
	if gk.Group != "" {
		return "", false
	}
	switch gk.Kind {
	case "Event":
		return "events are not propagated", true
	case "ConfigMap":
		if obj.GetName() == "kube-root-ca.crt" {
			return "each cluster publishes its own kube-root-ca.crt", true
		}
	case "ServiceAccount":
		if obj.GetName() == "default" {
			return "each cluster makes its own default ServiceAccount", true
		}
	case "Secret":
		if t, _, _ := unstructured.NestedString(obj.Object, "type"); t == "kubernetes.io/service-account-token" {
			return "a service-account token is valid on the hub only", true
		}
	}
	return "", false
}

// controllerOf names obj's controlling owner, "" for none.
func controllerOf(obj *unstructured.Unstructured) string {
	for _, ref := range obj.GetOwnerReferences() {
		if ref.Controller != nil && *ref.Controller {
			return ref.Kind + "/" + ref.Name
		}
	}
	return ""
}
