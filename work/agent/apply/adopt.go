package apply

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/corral-dev/corral/work/adoption"
	"github.com/corral-dev/corral/work/agent/appliedwork"
)

// Verdict is what a work's adoption policy made of one manifest: the
// reason of its adoption.ConditionType condition and the fields that
// differ; Refused says the object was left as it is because the policy
// refused to take it over.
type Verdict struct {
	Reason  string
	Fields  []adoption.Field
	Refused bool
}

// NotAdoptedError is a manifest whose object the cluster had before, made
// by no work, which the policy refused to take over: it is left as it is,
// and not tried again until it or the manifest changes.
type NotAdoptedError struct {
	Key      Key
	TakeOver adoption.TakeOver
	Fields   int
}

func (e *NotAdoptedError) Error() string {
	if e.TakeOver == adoption.TakeOverNever {
		return fmt.Sprintf("%s exists on the cluster, made by no ManifestWork: takeOver Never leaves it as it is", e.Key)
	}
	return fmt.Sprintf("%s exists on the cluster, made by no ManifestWork, and differs from the manifest in %d fields: takeOver %s leaves it as it is",
		e.Key, e.Fields, e.TakeOver)
}

// judgement is the object as an adoption policy judged it (live; nil:
// not there), and the manifest's digest (spec) the write leaves on it.
type judgement struct {
	live *unstructured.Unstructured
	spec string
}

// refusal is the error of a verdict that refused the object, nil for
// any other (or none).
func (v *Verdict) refusal(key Key, p *adoption.Policy) error {
	if v == nil || !v.Refused {
		return nil
	}
	return &NotAdoptedError{Key: key, TakeOver: p.TakeOver, Fields: len(v.Fields)}
}

// judged says whether the strategy is one the adoption policy judges:
// those that write over an object (Update, ServerSideApply), and ReadOnly
// under ReportDiff, which the hub gives such a work's manifests.
func judged(p *adoption.Policy, strategy workv1.UpdateStrategy) bool {
	switch {
	case p == nil:
		return false
	case strategy.Type == workv1.UpdateStrategyTypeReadOnly:
		return p.Mode == adoption.ModeReportDiff
	}
	return strategy.Type == workv1.UpdateStrategyTypeUpdate || strategy.Type == workv1.UpdateStrategyTypeServerSideApply
}

// adopt reads the object and judges it by the policy: whether the
// manifest may be written over it (write), and the verdict. unchangedOnHub
// says the manifest is the one last applied; spec is its digest, which a
// write by this agent under a policy leaves on the object
// (workv1.ObjectSpecHash), so that a change made on the cluster is told
// from a new manifest also after the agent restarted.
//
// An object that is not there: created, or under ReportDiff, WouldCreate.
// Under ReportDiff, nothing is written: WouldChange with what differs, or
// InSync. An object made by no work (no AppliedManifestWork owns it): taken
// over under Always, under IfNoDiff only when nothing differs, never under
// Never; refused, NotAdopted. A Namespace the cluster has is always taken
// over (shared): it holds what else runs there, and a propagation brings
// the namespace of its objects, labels merged in, never deleted with it.
// An object a work made, that differs while the manifest is unchanged:
// someone changed it on the cluster; put back (PutBack) under drift
// Always, left (Drifted) under IfNotDrifted.
func (a *Applier) adopt(ctx context.Context, ri dynamic.ResourceInterface, key Key, desired *unstructured.Unstructured, strategy workv1.UpdateStrategy,
	p adoption.Policy, unchangedOnHub bool, spec string) (v *Verdict, existing *unstructured.Unstructured, write bool, err error) {
	existing, err = a.get(ctx, ri, key)
	if err != nil {
		return nil, nil, false, err
	}
	if existing == nil {
		if p.Mode == adoption.ModeReportDiff {
			return &Verdict{Reason: adoption.ReasonWouldCreate}, nil, false, nil
		}
		return &Verdict{Reason: adoption.ReasonInSync}, nil, true, nil
	}
	var ignored []fieldPath
	if strategy.ServerSideApply != nil {
		for _, f := range strategy.ServerSideApply.IgnoreFields {
			paths, err := ignoredPaths(f)
			if err != nil {
				return nil, nil, false, &IgnoreFieldsError{Err: fmt.Errorf("ignoreFields: %w", err)}
			}
			ignored = append(ignored, paths...)
		}
	}
	fields := Diff(desired, existing, ignored)
	inSync := &Verdict{Reason: adoption.ReasonInSync}
	switch {
	case p.Mode == adoption.ModeReportDiff:
		if len(fields) > 0 {
			return &Verdict{Reason: adoption.ReasonWouldChange, Fields: fields}, existing, false, nil
		}
		return inSync, existing, false, nil
	case !slices.ContainsFunc(existing.GetOwnerReferences(), appliedwork.IsAppliedWork):
		if shared(desired) {
			return inSync, existing, true, nil
		}
		if p.TakeOver == adoption.TakeOverNever || p.TakeOver == adoption.TakeOverIfNoDiff && len(fields) > 0 {
			return &Verdict{Reason: adoption.ReasonNotAdopted, Fields: fields, Refused: true}, existing, false, nil
		}
		return inSync, existing, true, nil
	case len(fields) == 0 || !unchangedOnHub && existing.GetAnnotations()[workv1.ObjectSpecHash] != spec:
		return inSync, existing, true, nil
	case p.Drift == adoption.DriftIfNotDrifted:
		return &Verdict{Reason: adoption.ReasonDrifted, Fields: fields}, existing, false, nil
	}
	return &Verdict{Reason: adoption.ReasonPutBack, Fields: fields}, existing, true, nil
}

// shared says desired is a Namespace: a container others use too.
func shared(desired *unstructured.Unstructured) bool {
	gvk := desired.GroupVersionKind()
	return gvk.Group == "" && gvk.Kind == "Namespace"
}
