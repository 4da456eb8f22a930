package status

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/aggregate"
)

// target is a delivered object whose status is aggregated: its kind, and
// the work's resource identifier of it.
type target struct {
	gvk schema.GroupVersionKind
	id  workv1.ResourceIdentifier
	// enveloped says the object came out of an envelope: it has no
	// template on the hub, and a hub object of its name is another one.
	enveloped bool
}

// targetOf reads a manifest's kind, namespace and name; ok is false for a
// kind aggregate does not support, or a manifest that does not decode.
func targetOf(m workv1.Manifest) (target, bool) {
	var obj metav1.PartialObjectMetadata
	if err := json.Unmarshal(m.Raw, &obj); err != nil {
		return target{}, false
	}
	gvk := obj.GroupVersionKind()
	if !aggregate.Supported(gvk) || obj.Name == "" {
		return target{}, false
	}
	// Each supported kind's resource is its lowercase plural, which the
	// guess gets right; no RESTMapper is needed.
	gvr, _ := meta.UnsafeGuessKindToResource(gvk)
	_, enveloped := obj.Annotations[v1alpha1.AnnotationEnvelope]
	return target{gvk: gvk, id: workv1.ResourceIdentifier{
		Group: gvr.Group, Resource: gvr.Resource, Namespace: obj.Namespace, Name: obj.Name,
	}, enveloped: enveloped}, true
}

// ManifestConfigs is distribute.Options.ManifestConfigs: for each
// manifest of a kind aggregate supports, its feedback rules, in the form
// the API server stores them (feedbackScrapeType defaulted to Poll), so
// that a work read back compares equal. It sees the manifests only, not
// the propagation: the rules are given whatever statusAggregation says,
// and the controller writes no status when it is Disabled.
func ManifestConfigs(manifests []workv1.Manifest) []workv1.ManifestConfigOption {
	var out []workv1.ManifestConfigOption
	for _, m := range manifests {
		t, ok := targetOf(m)
		if !ok {
			continue
		}
		out = append(out, workv1.ManifestConfigOption{
			ResourceIdentifier: t.id,
			FeedbackRules:      aggregate.FeedbackRules(t.gvk),
			FeedbackScrapeType: workv1.FeedbackPollType,
		})
	}
	return out
}
