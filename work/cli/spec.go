package cli

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	workv1 "open-cluster-management.io/api/work/v1"
)

// Flags of the work's spec, by name: on apply only those given change a
// spec already there.
const (
	flagFeedback       = "feedback"
	flagFeedbackJSON   = "feedback-json"
	flagDeleteOption   = "delete-option"
	flagUpdateStrategy = "update-strategy"
	flagForceConflicts = "force-conflicts"
)

// workloadKinds are the kinds whose WellKnownStatus feedback is on by
// default: what says a workload is ready.
var workloadKinds = []schema.GroupKind{
	{Group: "apps", Kind: "Deployment"}, {Group: "apps", Kind: "StatefulSet"}, {Group: "apps", Kind: "DaemonSet"},
	{Group: "batch", Kind: "Job"}, {Kind: "Pod"},
}

func isWorkload(u *unstructured.Unstructured) bool {
	return slices.Contains(workloadKinds, u.GroupVersionKind().GroupKind())
}

// feedbackPath is one --feedback-json: a JSONPaths rule on the object
// KIND/NAME.
type feedbackPath struct {
	kind, name string
	path       workv1.JsonPath
}

const feedbackJSONExample = "e.g. --feedback-json deployment/web:ready=.status.readyReplicas"

// parseFeedbackJSON reads --feedback-json KIND/NAME:FIELD=JSONPATH.
func parseFeedbackJSON(v string) (feedbackPath, error) {
	target, rule, ok := strings.Cut(v, ":")
	kind, name, ok2 := strings.Cut(target, "/")
	field, path, ok3 := strings.Cut(rule, "=")
	if !ok || !ok2 || !ok3 || kind == "" || name == "" || field == "" || path == "" {
		return feedbackPath{}, fmt.Errorf("--feedback-json %q is not KIND/NAME:FIELD=JSONPATH: %s", v, feedbackJSONExample)
	}
	if !strings.HasPrefix(path, ".status") {
		return feedbackPath{}, fmt.Errorf("--feedback-json %q: the path must be under .status (the agent reports status only): %s", v, feedbackJSONExample)
	}
	return feedbackPath{kind: strings.ToLower(kind), name: name, path: workv1.JsonPath{Name: field, Path: path}}, nil
}

func (f feedbackPath) matches(u *unstructured.Unstructured) bool {
	return f.name == u.GetName() && (f.kind == strings.ToLower(u.GetKind()))
}

// validateSpecFlags checks --delete-option, --update-strategy,
// --force-conflicts and --feedback-json, each in one line.
func (o *CreateOptions) validateSpecFlags() error {
	switch workv1.DeletePropagationPolicyType(o.DeleteOption) {
	case "", workv1.DeletePropagationPolicyTypeForeground, workv1.DeletePropagationPolicyTypeOrphan:
	default:
		return fmt.Errorf("--delete-option %q is not Foreground or Orphan: e.g. --delete-option Orphan leaves the objects on the clusters when the work goes", o.DeleteOption)
	}
	switch workv1.UpdateStrategyType(o.UpdateStrategy) {
	case "", workv1.UpdateStrategyTypeUpdate, workv1.UpdateStrategyTypeCreateOnly, workv1.UpdateStrategyTypeServerSideApply, workv1.UpdateStrategyTypeReadOnly:
	default:
		return fmt.Errorf("--update-strategy %q is not Update, CreateOnly, ServerSideApply or ReadOnly: e.g. --update-strategy ServerSideApply", o.UpdateStrategy)
	}
	if o.ForceConflicts && o.UpdateStrategy != "" && o.UpdateStrategy != string(workv1.UpdateStrategyTypeServerSideApply) {
		return fmt.Errorf("--force-conflicts forces a server-side apply, not --update-strategy %s: e.g. --update-strategy ServerSideApply --force-conflicts", o.UpdateStrategy)
	}
	o.feedbackPaths = nil
	for _, v := range o.FeedbackJSON {
		f, err := parseFeedbackJSON(v)
		if err != nil {
			return err
		}
		o.feedbackPaths = append(o.feedbackPaths, f)
	}
	return nil
}

// checkFeedbackTargets says which --feedback-json names an object the
// file does not have, and refuses --wait with --feedback=false for a file
// with a workload: its readiness would never come back.
func (o *CreateOptions) checkFeedbackTargets() error {
	if o.Wait && !o.Feedback {
		if i := slices.IndexFunc(o.manifests, func(m workv1.Manifest) bool { return isWorkload(object(m)) }); i >= 0 {
			return fmt.Errorf("--wait waits for %s to be ready, which --feedback=false keeps from being reported: leave out one of them", objectName(object(o.manifests[i])))
		}
	}
	for i, f := range o.feedbackPaths {
		if !slices.ContainsFunc(o.manifests, func(m workv1.Manifest) bool { return f.matches(object(m)) }) {
			return fmt.Errorf("--feedback-json %q: %s has no %s %s: name an object of the file, %s", o.FeedbackJSON[i], o.File, f.kind, f.name, feedbackJSONExample)
		}
	}
	return nil
}

// desiredSpec is the spec to write: the file's objects and the flags'
// settings over old, the spec already there (nil when creating). On
// apply, only the flags given change old.
func (o *CreateOptions) desiredSpec(mapper meta.RESTMapper, old *workv1.ManifestWorkSpec) workv1.ManifestWorkSpec {
	given := func(flag string) bool { return old == nil || o.changed(flag) }
	var spec workv1.ManifestWorkSpec
	if old != nil {
		spec = *old.DeepCopy()
	}
	spec.Workload.Manifests = o.manifests
	if given(flagDeleteOption) && o.DeleteOption != "" {
		spec.DeleteOption = &workv1.DeleteOption{PropagationPolicy: workv1.DeletePropagationPolicyType(o.DeleteOption)}
	}
	spec.ManifestConfigs = o.manifestConfigs(mapper, spec.ManifestConfigs, given)
	return spec
}

// manifestConfigs sets, over old, each object's feedback rules and update
// strategy as the flags given say. A workload with no config of its own
// (a new one, on apply) gets WellKnownStatus feedback unless --feedback
// is false.
func (o *CreateOptions) manifestConfigs(mapper meta.RESTMapper, old []workv1.ManifestConfigOption, given func(string) bool) []workv1.ManifestConfigOption {
	configs := slices.Clone(old)
	find := func(id workv1.ResourceIdentifier) int {
		return slices.IndexFunc(configs, func(c workv1.ManifestConfigOption) bool { return c.ResourceIdentifier == id })
	}
	for _, m := range o.manifests {
		u := object(m)
		id := resourceIdentifier(mapper, u)
		i := find(id)
		if i < 0 {
			configs = append(configs, workv1.ManifestConfigOption{ResourceIdentifier: id})
			i = len(configs) - 1
			if isWorkload(u) && o.Feedback {
				configs[i].FeedbackRules = []workv1.FeedbackRule{{Type: workv1.WellKnownStatusType}}
			}
		}
		c := &configs[i]
		if given(flagFeedback) && isWorkload(u) {
			c.FeedbackRules = withoutRules(c.FeedbackRules, workv1.WellKnownStatusType)
			if o.Feedback {
				c.FeedbackRules = append([]workv1.FeedbackRule{{Type: workv1.WellKnownStatusType}}, c.FeedbackRules...)
			}
		}
		if given(flagFeedbackJSON) {
			c.FeedbackRules = withoutRules(c.FeedbackRules, workv1.JSONPathsType)
			var paths []workv1.JsonPath
			for _, f := range o.feedbackPaths {
				if f.matches(u) {
					paths = append(paths, f.path)
				}
			}
			if len(paths) > 0 {
				c.FeedbackRules = append(c.FeedbackRules, workv1.FeedbackRule{Type: workv1.JSONPathsType, JsonPaths: paths})
			}
		}
		if (given(flagUpdateStrategy) && o.UpdateStrategy != "") || (given(flagForceConflicts) && (o.ForceConflicts || o.Apply)) {
			c.UpdateStrategy = o.updateStrategy(c.UpdateStrategy)
		}
	}
	return slices.DeleteFunc(configs, func(c workv1.ManifestConfigOption) bool {
		return len(c.FeedbackRules) == 0 && c.UpdateStrategy == nil && len(c.ConditionRules) == 0 && c.FeedbackScrapeType == ""
	})
}

// updateStrategy is --update-strategy and --force-conflicts over old.
func (o *CreateOptions) updateStrategy(old *workv1.UpdateStrategy) *workv1.UpdateStrategy {
	s := &workv1.UpdateStrategy{Type: workv1.UpdateStrategyTypeUpdate}
	if old != nil {
		s = old.DeepCopy()
	}
	if o.UpdateStrategy != "" {
		s.Type = workv1.UpdateStrategyType(o.UpdateStrategy)
	}
	if o.ForceConflicts {
		s.Type = workv1.UpdateStrategyTypeServerSideApply
	}
	if s.Type != workv1.UpdateStrategyTypeServerSideApply {
		s.ServerSideApply = nil
		return s
	}
	if s.ServerSideApply == nil {
		s.ServerSideApply = &workv1.ServerSideApplyConfig{}
	}
	if o.ForceConflicts || o.changed(flagForceConflicts) {
		s.ServerSideApply.Force = o.ForceConflicts
	}
	return s
}

func withoutRules(rules []workv1.FeedbackRule, t workv1.FeedBackType) []workv1.FeedbackRule {
	return slices.DeleteFunc(slices.Clone(rules), func(r workv1.FeedbackRule) bool { return r.Type == t })
}

// resourceIdentifier names u as a manifest config does: by resource, as
// the hub's RESTMapper knows it, or as kubectl guesses it for a kind only
// the managed clusters know.
func resourceIdentifier(mapper meta.RESTMapper, u *unstructured.Unstructured) workv1.ResourceIdentifier {
	gvk := u.GroupVersionKind()
	resource, _ := meta.UnsafeGuessKindToResource(gvk)
	if mapper != nil {
		if m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err == nil {
			resource = m.Resource
		}
	}
	return workv1.ResourceIdentifier{Group: gvk.Group, Resource: resource.Resource, Namespace: u.GetNamespace(), Name: u.GetName()}
}
