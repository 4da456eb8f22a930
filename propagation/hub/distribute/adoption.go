package distribute

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/work/adoption"
)

// policyOf is the work agent's adoption policy of a propagation's
// adoption: unset fields are its defaults (takeOver IfNoDiff).
func policyOf(a *v1alpha1.Adoption) adoption.Policy {
	p := adoption.Policy{TakeOver: adoption.TakeOverIfNoDiff, Drift: adoption.DriftAlways, Mode: adoption.ModeApply}
	if a == nil {
		return p
	}
	if a.TakeOver != "" {
		p.TakeOver = adoption.TakeOver(a.TakeOver)
	}
	if a.Drift != "" {
		p.Drift = adoption.Drift(a.Drift)
	}
	if a.Mode != "" {
		p.Mode = adoption.Mode(a.Mode)
	}
	return p
}

// strategies are the update strategies the adoption gives the revision's
// objects, by their resource identifier in a work: ReadOnly for every
// object under ReportDiff (so that no agent writes anything, OCM's
// included); server-side apply, forced, leaving the ignoreFields as they
// are on the cluster, for the objects of a kind that has them. None
// otherwise. Resources are the hub's mapping of the objects' kinds (the
// hub serves them: the objects are its own); a kind it cannot map is an
// error, since under ReportDiff a manifest left without ReadOnly would be
// applied.
func strategies(a *v1alpha1.Adoption, objects []workv1.Manifest, mapper meta.RESTMapper) (map[workv1.ResourceIdentifier]*workv1.UpdateStrategy, error) {
	if a == nil || a.Mode != string(adoption.ModeReportDiff) && len(a.IgnoreFields) == 0 {
		return nil, nil
	}
	out := map[workv1.ResourceIdentifier]*workv1.UpdateStrategy{}
	for _, m := range objects {
		var obj metav1.PartialObjectMetadata
		if err := json.Unmarshal(m.Raw, &obj); err != nil {
			return nil, fmt.Errorf("an object of the revision does not decode: %w", err)
		}
		gvk := obj.GroupVersionKind()
		var ignored []string
		for _, f := range a.IgnoreFields {
			if f.Group == gvk.Group && f.Kind == gvk.Kind {
				ignored = append(ignored, f.JSONPaths...)
			}
		}
		if a.Mode != string(adoption.ModeReportDiff) && len(ignored) == 0 {
			continue
		}
		mapping, err := mapper.RESTMapping(schema.GroupKind{Group: gvk.Group, Kind: gvk.Kind}, gvk.Version)
		if err != nil {
			return nil, fmt.Errorf("spec.adoption: the hub cannot map kind %s: %w", gvk, err)
		}
		id := workv1.ResourceIdentifier{Group: mapping.Resource.Group, Resource: mapping.Resource.Resource, Name: obj.Name}
		if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
			id.Namespace = obj.Namespace
		}
		if a.Mode == string(adoption.ModeReportDiff) {
			out[id] = &workv1.UpdateStrategy{Type: workv1.UpdateStrategyTypeReadOnly}
			continue
		}
		out[id] = &workv1.UpdateStrategy{Type: workv1.UpdateStrategyTypeServerSideApply, ServerSideApply: &workv1.ServerSideApplyConfig{
			Force: true, FieldManager: workv1.DefaultFieldManager,
			IgnoreFields: []workv1.IgnoreField{{Condition: workv1.IgnoreFieldsConditionOnSpokePresent, JSONPaths: ignored}},
		}}
	}
	return out, nil
}

// withStrategies are configs (the feedback rules') with each manifest's
// update strategy from strategies set: on its config, or on one of its
// own, in the manifests' order.
func withStrategies(configs []workv1.ManifestConfigOption, strategies map[workv1.ResourceIdentifier]*workv1.UpdateStrategy) []workv1.ManifestConfigOption {
	if len(strategies) == 0 {
		return configs
	}
	out := make([]workv1.ManifestConfigOption, 0, len(configs)+len(strategies))
	seen := map[workv1.ResourceIdentifier]bool{}
	for _, c := range configs {
		if st, ok := strategies[c.ResourceIdentifier]; ok {
			c.UpdateStrategy = st
			seen[c.ResourceIdentifier] = true
		}
		out = append(out, c)
	}
	ids := make([]workv1.ResourceIdentifier, 0, len(strategies))
	for id := range strategies {
		if !seen[id] {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(a, b workv1.ResourceIdentifier) int {
		return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Resource, b.Resource), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	for _, id := range ids {
		// feedbackScrapeType as the API server defaults it: a work read
		// back compares equal.
		out = append(out, workv1.ManifestConfigOption{ResourceIdentifier: id, UpdateStrategy: strategies[id], FeedbackScrapeType: workv1.FeedbackPollType})
	}
	return out
}

// driftOf is what a cluster's works report of objects that differ there
// (adoption.ConditionType): those left differing, and changes put back.
func driftOf(works []workv1.ManifestWork) []v1alpha1.ObjectDrift {
	var out []v1alpha1.ObjectDrift
	for _, w := range works {
		for _, mc := range w.Status.ResourceStatus.Manifests {
			c := meta.FindStatusCondition(mc.Conditions, adoption.ConditionType)
			if c == nil || c.Status != metav1.ConditionTrue && c.Reason != adoption.ReasonPutBack {
				continue
			}
			rm := mc.ResourceMeta
			d := v1alpha1.ObjectDrift{ObjectReference: v1alpha1.ObjectReference{Group: rm.Group, Version: rm.Version, Kind: rm.Kind, Namespace: rm.Namespace, Name: rm.Name},
				Reason: c.Reason, Since: c.LastTransitionTime}
			for _, f := range adoption.Fields(c.Message) {
				d.Fields = append(d.Fields, v1alpha1.FieldDiff{Path: f.Path, Hub: string(f.Hub), Cluster: string(f.Cluster)})
			}
			out = append(out, d)
		}
	}
	return out
}

// adoptionUnsupported is the message of a cluster whose agent ignores the
// adoption policy.
const adoptionUnsupported = "the cluster's work agent does not follow spec.adoption (OCM's agent does not): it takes every object over, " +
	"puts every change back, reports no differences, and under ReportDiff applies nothing"

// ignoresAdoption says the cluster's agent reported on its works (Applied,
// for their generation) without saying it follows their adoption policy
// (adoption.WorkConditionType).
func ignoresAdoption(works []workv1.ManifestWork) bool {
	for i := range works {
		w := &works[i]
		applied := meta.FindStatusCondition(w.Status.Conditions, workv1.WorkApplied)
		if applied == nil || applied.ObservedGeneration != w.Generation {
			continue
		}
		if !meta.IsStatusConditionTrue(w.Status.Conditions, adoption.WorkConditionType) {
			return true
		}
	}
	return false
}
