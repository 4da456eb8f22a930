package override

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/json"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/corral-dev/corral/internal/clusterselector"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

const deployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop","labels":{"app":"web"}},
"spec":{"replicas":2,"template":{"spec":{
  "initContainers":[{"name":"init","image":"busybox:1.36"}],
  "containers":[{"name":"web","image":"registry.example/team/web:v1","args":["--port=8080"]},
                {"name":"sidecar","image":"localhost:5000/proxy@sha256:abc"}]}}}}`

func object(t *testing.T, raw string) map[string]any {
	t.Helper()
	obj := map[string]any{}
	if err := json.Unmarshal([]byte(raw), &obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

var east = &clusterv1.ManagedCluster{
	ObjectMeta: metav1.ObjectMeta{Name: "east", Labels: map[string]string{"region": "us-east", "env": "prod"}},
	Status:     clusterv1.ManagedClusterStatus{ClusterClaims: []clusterv1.ManagedClusterClaim{{Name: "platform", Value: "aws"}}},
}

func policy(t *testing.T, clusterScoped bool, name string, priority int32, rules ...v1alpha1.OverrideRule) *Policy {
	t.Helper()
	p, err := Compile(clusterScoped, name, v1alpha1.Overrides{Priority: priority, Rules: rules}, clusterselector.NewCompiler(nil))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func value(t *testing.T, v any) *apiextensionsv1.JSON {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return &apiextensionsv1.JSON{Raw: raw}
}

func get(t *testing.T, obj map[string]any, path string) any {
	t.Helper()
	var cur any = obj
	for _, f := range strings.Split(path, ".") {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[f]
		case []any:
			i := int(f[0] - '0')
			cur = c[i]
		default:
			t.Fatalf("%s: no %s in %v", path, f, cur)
		}
	}
	return cur
}

func TestApplyEachOverrider(t *testing.T) {
	prodOnly := &clusterv1beta1.ClusterSelector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}}
	devOnly := &clusterv1beta1.ClusterSelector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"env": "dev"}}}
	for name, tc := range map[string]struct {
		rule v1alpha1.OverrideRule
		want map[string]any // path → value
	}{
		"labels set with variables, and removed": {rule: v1alpha1.OverrideRule{
			SetLabels: map[string]string{"cluster": "${CLUSTER_NAME}", "region": "${CLUSTER_LABEL:region}", "platform": "${CLUSTER_CLAIM:platform}"}, RemoveLabels: []string{"app"}},
			want: map[string]any{"metadata.labels": map[string]any{"cluster": "east", "region": "us-east", "platform": "aws"}}},
		"annotations set": {rule: v1alpha1.OverrideRule{SetAnnotations: map[string]string{"owner": "team-${CLUSTER_NAME}"}},
			want: map[string]any{"metadata.annotations": map[string]any{"owner": "team-east"}}},
		"every image's registry": {rule: v1alpha1.OverrideRule{Images: []v1alpha1.ImageOverride{{Registry: "mirror.${CLUSTER_LABEL:region}.example"}}},
			want: map[string]any{
				"spec.template.spec.initContainers.0.image": "mirror.us-east.example/busybox:1.36",
				"spec.template.spec.containers.0.image":     "mirror.us-east.example/team/web:v1",
				"spec.template.spec.containers.1.image":     "mirror.us-east.example/proxy@sha256:abc",
			}},
		"one container's tag, its digest dropped": {rule: v1alpha1.OverrideRule{Images: []v1alpha1.ImageOverride{{Container: "sidecar", Tag: "v2"}}},
			want: map[string]any{
				"spec.template.spec.containers.0.image": "registry.example/team/web:v1",
				"spec.template.spec.containers.1.image": "localhost:5000/proxy:v2",
			}},
		"a repository": {rule: v1alpha1.OverrideRule{Images: []v1alpha1.ImageOverride{{Container: "web", Repository: "team/web-fips"}}},
			want: map[string]any{"spec.template.spec.containers.0.image": "registry.example/team/web-fips:v1"}},
		"command and args, a shell's variable kept": {rule: v1alpha1.OverrideRule{Containers: []v1alpha1.ContainerOverride{
			{Container: "web", Command: []string{"sh", "-c"}, Args: []string{"exec web --cluster=${CLUSTER_NAME} --home=${HOME}"}}}},
			want: map[string]any{
				"spec.template.spec.containers.0.command": []any{"sh", "-c"},
				"spec.template.spec.containers.0.args":    []any{"exec web --cluster=east --home=${HOME}"},
			}},
		"json patch: replace a number, add with a variable, remove": {rule: v1alpha1.OverrideRule{JSONPatch: []v1alpha1.JSONPatchOperation{
			{Op: v1alpha1.JSONPatchReplace, Path: "/spec/replicas", Value: value(t, 5)},
			{Op: v1alpha1.JSONPatchAdd, Path: "/spec/template/spec/containers/0/env", Value: value(t, []any{map[string]any{"name": "CLUSTER", "value": "${CLUSTER_NAME}"}})},
			{Op: v1alpha1.JSONPatchRemove, Path: "/metadata/labels/app"},
		}},
			want: map[string]any{
				"spec.replicas":                       int64(5),
				"spec.template.spec.containers.0.env": []any{map[string]any{"name": "CLUSTER", "value": "east"}},
				"metadata.labels":                     map[string]any{},
			}},
		"a rule for other clusters changes nothing": {rule: v1alpha1.OverrideRule{ClusterSelector: devOnly, SetLabels: map[string]string{"x": "y"}},
			want: map[string]any{"metadata.labels": map[string]any{"app": "web"}}},
		"a rule for this cluster": {rule: v1alpha1.OverrideRule{ClusterSelector: prodOnly, SetLabels: map[string]string{"x": "y"}},
			want: map[string]any{"metadata.labels": map[string]any{"app": "web", "x": "y"}}},
	} {
		t.Run(name, func(t *testing.T) {
			obj, _, err := Apply(object(t, deployment), []*Policy{policy(t, false, "shop/p", 0, tc.rule)}, east)
			if err != nil {
				t.Fatal(err)
			}
			for path, want := range tc.want {
				if diff := cmp.Diff(want, get(t, obj, path)); diff != "" {
					t.Errorf("%s (-want +got):\n%s", path, diff)
				}
			}
		})
	}
}

func TestApplyOrderTheLastWins(t *testing.T) {
	set := func(v string) v1alpha1.OverrideRule {
		return v1alpha1.OverrideRule{SetLabels: map[string]string{"tier": v}}
	}
	// In the order a revision holds them (TestSnapshot checks it).
	policies := []*Policy{
		policy(t, true, "cluster-wide", 100, set("cluster-scoped")),
		policy(t, false, "shop/a", 0, set("namespaced-a")),
		policy(t, false, "shop/b", 0, set("namespaced-b")),
		policy(t, false, "shop/high", 10, set("namespaced-high"), set("namespaced-high-second-rule")),
	}
	obj, applied, err := Apply(object(t, deployment), policies, east)
	if err != nil {
		t.Fatal(err)
	}
	if got := get(t, obj, "metadata.labels.tier"); got != "namespaced-high-second-rule" {
		t.Errorf("tier: %v, want the last rule of the highest priority's", got)
	}
	if len(applied) != 5 || applied[4] != "OverridePolicy shop/high, rule rule-1" {
		t.Errorf("applied: %v, want 5 rules, the last OverridePolicy shop/high, rule rule-1", applied)
	}
}

func TestApplyRefusesAndChangesNothing(t *testing.T) {
	for name, tc := range map[string]struct {
		obj  string
		rule v1alpha1.OverrideRule
		want string
	}{
		"a path that does not exist": {rule: v1alpha1.OverrideRule{Name: "fix", JSONPatch: []v1alpha1.JSONPatchOperation{
			{Op: v1alpha1.JSONPatchReplace, Path: "/spec/paused", Value: value(t, true)}}},
			want: "OverridePolicy shop/p, rule fix: jsonPatch[0] (replace /spec/paused)"},
		"replace without a value": {rule: v1alpha1.OverrideRule{JSONPatch: []v1alpha1.JSONPatchOperation{
			{Op: v1alpha1.JSONPatchReplace, Path: "/spec/replicas"}}},
			want: "jsonPatch[0] (replace /spec/replicas): add and replace take a value, remove none"},
		"remove with a value": {rule: v1alpha1.OverrideRule{JSONPatch: []v1alpha1.JSONPatchOperation{
			{Op: v1alpha1.JSONPatchRemove, Path: "/spec/replicas", Value: value(t, 1)}}},
			want: "add and replace take a value, remove none"},
		"a label the cluster lacks": {rule: v1alpha1.OverrideRule{SetLabels: map[string]string{"zone": "${CLUSTER_LABEL:zone}"}},
			want: "rule rule-1: cluster east has no label zone"},
		"an unknown variable": {rule: v1alpha1.OverrideRule{SetLabels: map[string]string{"x": "${CLUSTER_ID}"}},
			want: "unknown variable ${CLUSTER_ID}"},
		"a container that is not there": {rule: v1alpha1.OverrideRule{Images: []v1alpha1.ImageOverride{{Container: "db", Tag: "v2"}}},
			want: "the Deployment has no container db"},
		"an image on a kind without pods": {obj: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`,
			rule: v1alpha1.OverrideRule{Images: []v1alpha1.ImageOverride{{Tag: "v2"}}},
			want: "a ConfigMap has no pod template: change it with jsonPatch"},
		"an image that does not parse": {obj: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":""}]}}`,
			rule: v1alpha1.OverrideRule{Images: []v1alpha1.ImageOverride{{Tag: "v2"}}},
			want: `image "" is not an image reference`},
	} {
		t.Run(name, func(t *testing.T) {
			raw := deployment
			if tc.obj != "" {
				raw = tc.obj
			}
			obj := object(t, raw)
			before := runtime.DeepCopyJSON(obj)
			// A first rule that applies, so that a change left behind shows.
			first := v1alpha1.OverrideRule{SetLabels: map[string]string{"first": "applied"}}
			_, _, err := Apply(obj, []*Policy{policy(t, false, "shop/p", 0, first, tc.rule)}, east)
			var oe *Error
			if !errors.As(err, &oe) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Apply: %v, want an *Error saying %q", err, tc.want)
			}
			if diff := cmp.Diff(before, obj); diff != "" {
				t.Errorf("a refused override changed the object (-before +after):\n%s", diff)
			}
		})
	}
}

func TestCompileRefusesABadSelector(t *testing.T) {
	_, err := Compile(false, "shop/p", v1alpha1.Overrides{Rules: []v1alpha1.OverrideRule{{Name: "eu",
		ClusterSelector: &clusterv1beta1.ClusterSelector{CelSelector: clusterv1beta1.ClusterCelSelector{CelExpressions: []string{"=="}}}}}},
		clusterselector.NewCompiler(nil))
	if err == nil || !strings.Contains(err.Error(), "OverridePolicy shop/p, rule eu: spec.rules[0].clusterSelector.celSelector") {
		t.Errorf("Compile: %v, want the policy, the rule and the field", err)
	}
}

func TestParseImage(t *testing.T) {
	for in, want := range map[string]imageRef{
		"nginx":                             {repository: "nginx"},
		"nginx:1.27":                        {repository: "nginx", tag: "1.27"},
		"team/web:v1":                       {repository: "team/web", tag: "v1"},
		"registry.example/team/web:v1":      {registry: "registry.example", repository: "team/web", tag: "v1"},
		"localhost:5000/web":                {registry: "localhost:5000", repository: "web"},
		"localhost/web@sha256:abc":          {registry: "localhost", repository: "web", digest: "sha256:abc"},
		"r.example:443/a/b:tag@sha256:0123": {registry: "r.example:443", repository: "a/b", tag: "tag", digest: "sha256:0123"},
	} {
		got, err := parseImage(in)
		if err != nil {
			t.Errorf("parseImage(%q): %v", in, err)
			continue
		}
		if got != want {
			t.Errorf("parseImage(%q) = %+v, want %+v", in, got, want)
		}
		if got.String() != in {
			t.Errorf("parseImage(%q).String() = %q, want it back", in, got.String())
		}
	}
}
