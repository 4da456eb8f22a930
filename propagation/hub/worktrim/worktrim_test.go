package worktrim

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/work/adoption"
)

func manifest(raw string) workv1.Manifest {
	return workv1.Manifest{RawExtension: runtime.RawExtension{Raw: []byte(raw)}}
}

// work is a work of labels with one ConfigMap manifest of raw, a feedback
// rule, its manifest's condition and feedback.
func work(labels map[string]string, raw string) *workv1.ManifestWork {
	w := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: "w", Labels: labels}}
	w.Spec.Workload.Manifests = []workv1.Manifest{manifest(raw)}
	w.Spec.ManifestConfigs = []workv1.ManifestConfigOption{{ResourceIdentifier: workv1.ResourceIdentifier{Resource: "configmaps", Name: "web", Namespace: "shop"},
		FeedbackRules: []workv1.FeedbackRule{{Type: workv1.JSONPathsType, JsonPaths: []workv1.JsonPath{{Name: "x", Path: ".data.x"}}}}}}
	w.Spec.DeleteOption = &workv1.DeleteOption{PropagationPolicy: workv1.DeletePropagationPolicyTypeOrphan}
	w.Status.Conditions = []metav1.Condition{{Type: workv1.WorkApplied, Status: metav1.ConditionTrue}}
	w.Status.ResourceStatus.Manifests = []workv1.ManifestCondition{{
		Conditions:      []metav1.Condition{{Type: workv1.ManifestApplied, Status: metav1.ConditionTrue}},
		StatusFeedbacks: workv1.StatusFeedbackResult{Values: []workv1.FeedbackValue{{Name: "x"}}},
	}}
	return w
}

var ours = map[string]string{v1alpha1.LabelPropagation: "web"}

const cm = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web","namespace":"shop"},"data":{"x":"1"}}`

func TestTransformTrimsAPropagationsWorkAndKeepsItsHash(t *testing.T) {
	w := work(ours, cm)
	want, err := HashSpec(&w.Spec)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Transform(w)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*workv1.ManifestWork)
	if len(got.Spec.Workload.Manifests) != 0 || len(got.Spec.ManifestConfigs) != 0 || len(got.Status.ResourceStatus.Manifests[0].Conditions) != 0 {
		t.Errorf("kept %d manifests, %d feedback rules, %d manifest conditions; want none", len(got.Spec.Workload.Manifests),
			len(got.Spec.ManifestConfigs), len(got.Status.ResourceStatus.Manifests[0].Conditions))
	}
	if got.Spec.DeleteOption == nil || len(got.Status.Conditions) != 1 || len(got.Status.ResourceStatus.Manifests[0].StatusFeedbacks.Values) != 1 {
		t.Errorf("lost what the hub reads: delete option %v, conditions %v, feedback %v", got.Spec.DeleteOption, got.Status.Conditions,
			got.Status.ResourceStatus.Manifests[0].StatusFeedbacks)
	}
	if h, err := SpecHash(got); err != nil || h != want {
		t.Errorf("SpecHash of the trimmed work %q (%v), want the whole spec's %q", h, err, want)
	}
	if _, ok := Writable(got).Annotations[AnnotationSpecHash]; ok {
		t.Errorf("Writable kept %s", AnnotationSpecHash)
	}
	if _, ok := got.Annotations[AnnotationSpecHash]; !ok {
		t.Errorf("Writable changed the cache's object")
	}
}

func TestTransformKeepsOnlyTheStatusesTheHubAggregates(t *testing.T) {
	w := work(ours, cm)
	meta := func(group, kind, name string) workv1.ManifestCondition {
		return workv1.ManifestCondition{ResourceMeta: workv1.ManifestResourceMeta{Group: group, Version: "v1", Kind: kind, Name: name},
			StatusFeedbacks: workv1.StatusFeedbackResult{Values: []workv1.FeedbackValue{{Name: "replicas"}}}}
	}
	unknownKind := meta("apps", "", "reported-without-kind")
	unknownKind.ResourceMeta.Resource = "deployments"
	w.Status.ResourceStatus.Manifests = []workv1.ManifestCondition{
		meta("", "Namespace", "shop"), meta("apps", "Deployment", "web"), meta("", "ConfigMap", "web"),
		meta("batch", "Job", "migrate"), unknownKind,
	}
	out, err := Transform(w)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, mc := range out.(*workv1.ManifestWork).Status.ResourceStatus.Manifests {
		kept = append(kept, mc.ResourceMeta.Name)
	}
	if want := []string{"web", "migrate", "reported-without-kind"}; !slices.Equal(kept, want) {
		t.Errorf("kept the statuses of %v, want %v (aggregated kinds and unknown ones)", kept, want)
	}
}

func TestTransformKeepsTheAdoptionReport(t *testing.T) {
	w := work(ours, cm)
	drift := metav1.Condition{Type: adoption.ConditionType, Status: metav1.ConditionTrue, Reason: adoption.ReasonDrifted, Message: "changed"}
	w.Status.ResourceStatus.Manifests = []workv1.ManifestCondition{
		{ResourceMeta: workv1.ManifestResourceMeta{Version: "v1", Kind: "ConfigMap", Name: "drifted"},
			Conditions: []metav1.Condition{{Type: workv1.ManifestApplied, Status: metav1.ConditionTrue}, drift}},
		{ResourceMeta: workv1.ManifestResourceMeta{Group: "apps", Version: "v1", Kind: "Deployment", Name: "web"},
			Conditions: []metav1.Condition{{Type: workv1.ManifestApplied, Status: metav1.ConditionTrue}}},
	}
	out, err := Transform(w)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*workv1.ManifestWork).Status.ResourceStatus.Manifests
	if len(got) != 2 || got[0].ResourceMeta.Name != "drifted" || !slices.Equal(got[0].Conditions, []metav1.Condition{drift}) || len(got[1].Conditions) != 0 {
		t.Errorf("kept %+v; want the ConfigMap with its adoption report alone, the Deployment without conditions", got)
	}
}

func TestTransformLeavesOtherWorksWhole(t *testing.T) {
	w := work(map[string]string{"app": "web"}, cm)
	out, err := Transform(w.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	if got := out.(*workv1.ManifestWork); len(got.Spec.Workload.Manifests) != 1 || got.Annotations[AnnotationSpecHash] != "" {
		t.Errorf("another work was trimmed: %d manifests, annotations %v", len(got.Spec.Workload.Manifests), got.Annotations)
	}
}

func TestHashSpecComparesManifestsAsJSON(t *testing.T) {
	hash := func(raw string) string {
		t.Helper()
		h, err := HashSpec(&work(ours, raw).Spec)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	reencoded := `{ "kind":"ConfigMap", "apiVersion":"v1", "data":{"x":"1"}, "metadata":{"namespace":"shop","name":"web"} }`
	if hash(cm) != hash(reencoded) {
		t.Error("the same manifest re-encoded hashes differently")
	}
	if hash(cm) == hash(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web","namespace":"shop"},"data":{"x":"2"}}`) {
		t.Error("different manifests hash the same")
	}
	w := work(ours, cm)
	before, _ := HashSpec(&w.Spec)
	w.Spec.ManifestConfigs = nil
	if after, _ := HashSpec(&w.Spec); after == before {
		t.Error("the feedback rules do not count in the hash")
	}
	if _, err := HashSpec(&work(ours, `{"not json`).Spec); err == nil {
		t.Error("a manifest that is not JSON hashed")
	}
}

func TestSameMetaSetsTheCachesAnnotationAside(t *testing.T) {
	want := work(ours, cm)
	want.Annotations = map[string]string{"a": "1"}
	trimmed, err := Transform(want.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	current := trimmed.(*workv1.ManifestWork)
	if !SameMeta(current, want) {
		t.Error("a trimmed work differs from its own metadata")
	}
	changed := want.DeepCopy()
	changed.Annotations["a"] = "2"
	if SameMeta(current, changed) {
		t.Error("a changed annotation went unseen")
	}
	changed.Annotations = map[string]string{"a": "1", AnnotationSpecHash: current.Annotations[AnnotationSpecHash]}
	if SameMeta(current, changed) {
		t.Error("a work to write that carries the cache's annotation compared equal")
	}
	changed = want.DeepCopy()
	changed.Labels = map[string]string{v1alpha1.LabelPropagation: "api"}
	if SameMeta(current, changed) {
		t.Error("a changed label went unseen")
	}
}
