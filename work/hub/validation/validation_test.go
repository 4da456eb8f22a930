package validation

import (
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
)

func raw(s string) workv1.Manifest {
	return workv1.Manifest{RawExtension: runtime.RawExtension{Raw: []byte(s)}}
}

const cm = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"default","name":"a"}}`

func TestManifests(t *testing.T) {
	big := raw(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big"},"data":{"x":"` + strings.Repeat("x", MaxManifestsSize) + `"}}`)
	cases := map[string]struct {
		manifests []workv1.Manifest
		want      string // a part of the error; "" for none
	}{
		"one object":         {manifests: []workv1.Manifest{raw(cm)}},
		"cluster-scoped too": {manifests: []workv1.Manifest{raw(cm), raw(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}}`)}},
		"none":               {want: "the work has no manifests"},
		"not JSON":           {manifests: []workv1.Manifest{raw(`{nope`)}, want: "manifest 0: it is not a Kubernetes object"},
		"a list, not a map":  {manifests: []workv1.Manifest{raw(`[1]`)}, want: "manifest 0: it is not a Kubernetes object"},
		"empty":              {manifests: []workv1.Manifest{raw(cm), raw(``)}, want: "manifest 1: it is empty"},
		"no kind":            {manifests: []workv1.Manifest{raw(`{"apiVersion":"v1","metadata":{"name":"a"}}`)}, want: "manifest 0: it has no kind: every manifest needs apiVersion, kind and metadata.name"},
		"a name under Metadata, not metadata": {manifests: []workv1.Manifest{raw(`{"apiVersion":"v1","kind":"ConfigMap","Metadata":{"name":"a"}}`)},
			want: "it has no metadata.name"},
		"no apiVersion, name": {manifests: []workv1.Manifest{raw(`{"kind":"ConfigMap"}`)}, want: "it has no apiVersion and metadata.name"},
		"generateName":        {manifests: []workv1.Manifest{raw(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","generateName":"a-"}}`)}, want: "sets metadata.generateName"},
		"bad name":            {manifests: []workv1.Manifest{raw(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a/b"}}`)}, want: `metadata.name "a/b" is not a valid object name`},
		"twice":               {manifests: []workv1.Manifest{raw(cm), raw(cm)}, want: "manifest 1: v1 ConfigMap default/a is in the work twice"},
		"over the cap":        {manifests: []workv1.Manifest{big}, want: "over the 512000 bytes (500 KiB) a work may carry"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			check(t, Manifests(tc.manifests), tc.want)
		})
	}
	if err := Manifests(nil); !errors.Is(err, ErrNoManifests) {
		t.Errorf("no manifests: %v, want ErrNoManifests", err)
	}
}

func check(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("unexpected error: %v", err)
	case want != "" && err == nil:
		t.Errorf("no error, want one with %q", want)
	case want != "" && !strings.Contains(err.Error(), want):
		t.Errorf("error %q, want one with %q", err, want)
	}
}

func TestReplicaSet(t *testing.T) {
	set := func(refs ...workv1alpha1.LocalPlacementReference) *workv1alpha1.ManifestWorkReplicaSet {
		return &workv1alpha1.ManifestWorkReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "app"},
			Spec: workv1alpha1.ManifestWorkReplicaSetSpec{
				ManifestWorkTemplate: workv1.ManifestWorkSpec{Workload: workv1.ManifestsTemplate{Manifests: []workv1.Manifest{raw(cm)}}},
				PlacementRefs:        refs,
			}}
	}
	ref := func(name string, rs clusterv1alpha1.RolloutStrategy) workv1alpha1.LocalPlacementReference {
		return workv1alpha1.LocalPlacementReference{Name: name, RolloutStrategy: rs}
	}
	progressive := func(c clusterv1alpha1.RolloutConfig, maxConcurrency intstr.IntOrString) clusterv1alpha1.RolloutStrategy {
		return clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.Progressive,
			Progressive: &clusterv1alpha1.RolloutProgressive{RolloutConfig: c, MaxConcurrency: maxConcurrency}}
	}
	perGroup := func(c clusterv1alpha1.RolloutConfig) clusterv1alpha1.RolloutStrategy {
		return clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.ProgressivePerGroup, ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{RolloutConfig: c}}
	}
	noManifests := set(ref("p", clusterv1alpha1.RolloutStrategy{}))
	noManifests.Spec.ManifestWorkTemplate.Workload.Manifests = nil
	cases := map[string]struct {
		set  *workv1alpha1.ManifestWorkReplicaSet
		want string
	}{
		"default strategy": {set: set(ref("p", clusterv1alpha1.RolloutStrategy{}))},
		"progressive": {set: set(ref("p", progressive(clusterv1alpha1.RolloutConfig{
			MinSuccessTime: metav1.Duration{Duration: time.Minute}, ProgressDeadline: "10m", MaxFailures: intstr.FromString("25%"),
		}, intstr.FromInt32(2))))},
		"per group":             {set: set(ref("p", perGroup(clusterv1alpha1.RolloutConfig{ProgressDeadline: "None", MaxFailures: intstr.FromInt32(1)})))},
		"two placements":        {set: set(ref("p", clusterv1alpha1.RolloutStrategy{}), ref("q", clusterv1alpha1.RolloutStrategy{}))},
		"no placementRefs":      {set: set(), want: "spec.placementRefs is empty: name at least one Placement in namespace apps"},
		"no manifests":          {set: noManifests, want: "spec.manifestWorkTemplate: the work has no manifests"},
		"unnamed placement":     {set: set(ref("", clusterv1alpha1.RolloutStrategy{})), want: "spec.placementRefs[0] has no name"},
		"placement named twice": {set: set(ref("p", clusterv1alpha1.RolloutStrategy{}), ref("p", clusterv1alpha1.RolloutStrategy{})), want: "spec.placementRefs[1]: placement p is named twice"},
		"unknown type": {set: set(ref("p", clusterv1alpha1.RolloutStrategy{Type: "Sometimes"})),
			want: `spec.placementRefs[0].rolloutStrategy: type "Sometimes" is not a rollout strategy`},
		"bad deadline": {set: set(ref("p", progressive(clusterv1alpha1.RolloutConfig{ProgressDeadline: "5 minutes"}, intstr.IntOrString{}))),
			want: `progressive.progressDeadline "5 minutes" is not a duration`},
		"deadline with junk": {set: set(ref("p", perGroup(clusterv1alpha1.RolloutConfig{ProgressDeadline: "5mfoo"}))),
			want: `progressivePerGroup.progressDeadline "5mfoo" is not a duration`},
		"negative soak": {set: set(ref("p", progressive(clusterv1alpha1.RolloutConfig{MinSuccessTime: metav1.Duration{Duration: -time.Second}}, intstr.IntOrString{}))),
			want: "progressive.minSuccessTime is -1s: it must not be negative"},
		"negative concurrency": {set: set(ref("p", progressive(clusterv1alpha1.RolloutConfig{}, intstr.FromInt32(-1)))),
			want: "progressive.maxConcurrency is -1"},
		"percent over 100": {set: set(ref("p", progressive(clusterv1alpha1.RolloutConfig{MaxFailures: intstr.FromString("120%")}, intstr.IntOrString{}))),
			want: `progressive.maxFailures "120%" is over 100%`},
		"empty": {set: set(ref("p", perGroup(clusterv1alpha1.RolloutConfig{MaxFailures: intstr.FromString("")}))),
			want: `progressivePerGroup.maxFailures "" is not a number of clusters or a percentage`},
		"not a number": {set: set(ref("p", perGroup(clusterv1alpha1.RolloutConfig{MaxFailures: intstr.FromString("few")}))),
			want: `progressivePerGroup.maxFailures "few" is not a number of clusters or a percentage`},
		"bad all deadline": {set: set(ref("p", clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All, All: &clusterv1alpha1.RolloutAll{RolloutConfig: clusterv1alpha1.RolloutConfig{ProgressDeadline: "soon"}}})),
			want: `all.progressDeadline "soon" is not a duration`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			check(t, ReplicaSet(tc.set), tc.want)
		})
	}
}
