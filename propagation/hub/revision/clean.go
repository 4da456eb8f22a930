package revision

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// lastApplied is kubectl's copy of what it applied: the hub's, meaningless
// on a cluster, and often the biggest field of an object.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// Labels a Job's controller sets from its uid: the hub Job's uid, never the
// member's.
var jobUIDLabels = []string{"controller-uid", "batch.kubernetes.io/controller-uid"}

// serverMetadata is what the hub's API server sets in metadata: identity,
// history and ownership of the hub's object, not the cluster's.
var serverMetadata = []string{
	"uid", "resourceVersion", "generation", "creationTimestamp", "managedFields",
	"ownerReferences", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink",
}

// Clean strips from obj, in place, what must not travel to a cluster: the
// metadata the hub's API server set, the status, kubectl's last-applied
// annotation, a Service's allocated IPs and node ports (a headless
// Service's "None" stays), and a Job's generated selector and uid labels.
func Clean(obj *unstructured.Unstructured) {
	for _, field := range serverMetadata {
		unstructured.RemoveNestedField(obj.Object, "metadata", field)
	}
	unstructured.RemoveNestedField(obj.Object, "status")
	if annotations := obj.GetAnnotations(); annotations != nil {
		delete(annotations, lastApplied)
		if len(annotations) == 0 {
			annotations = nil // removes the field: an empty map would hash differently
		}
		obj.SetAnnotations(annotations)
	}
	gk := obj.GroupVersionKind().GroupKind()
	switch {
	case gk.Group == "" && gk.Kind == "Service":
		cleanService(obj)
	case gk.Group == "batch" && gk.Kind == "Job":
		cleanJob(obj)
	}
}

// cleanService strips the IPs and ports the hub allocated.
func cleanService(obj *unstructured.Unstructured) {
	if ip, _, _ := unstructured.NestedString(obj.Object, "spec", "clusterIP"); ip != "None" {
		unstructured.RemoveNestedField(obj.Object, "spec", "clusterIP")
		unstructured.RemoveNestedField(obj.Object, "spec", "clusterIPs")
	}
	unstructured.RemoveNestedField(obj.Object, "spec", "healthCheckNodePort")
	ports, found, err := unstructured.NestedSlice(obj.Object, "spec", "ports")
	if !found || err != nil {
		return
	}
	for _, p := range ports {
		if port, ok := p.(map[string]any); ok {
			delete(port, "nodePort")
		}
	}
	_ = unstructured.SetNestedSlice(obj.Object, ports, "spec", "ports")
}

// cleanJob strips the selector and labels the hub's Job controller
// generated from the hub Job's uid, unless the user chose the selector.
func cleanJob(obj *unstructured.Unstructured) {
	if manual, _, _ := unstructured.NestedBool(obj.Object, "spec", "manualSelector"); manual {
		return
	}
	unstructured.RemoveNestedField(obj.Object, "spec", "selector")
	removeLabels(obj.Object, jobUIDLabels, "metadata", "labels")
	removeLabels(obj.Object, jobUIDLabels, "spec", "template", "metadata", "labels")
}

// removeLabels removes keys from the string map at path, and the map when
// that empties it.
func removeLabels(obj map[string]any, keys []string, path ...string) {
	labels, found, err := unstructured.NestedStringMap(obj, path...)
	if !found || err != nil {
		return
	}
	for _, k := range keys {
		delete(labels, k)
	}
	if len(labels) == 0 {
		unstructured.RemoveNestedField(obj, path...)
		return
	}
	_ = unstructured.SetNestedStringMap(obj, labels, path...)
}
