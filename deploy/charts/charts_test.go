package charts

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func render(t *testing.T, c Chart, values map[string]any) []*unstructured.Unstructured {
	t.Helper()
	objs, err := c.Render(Release{Name: string(c), Namespace: namespaceOf[c], Version: "v9.8.7", Values: values})
	if err != nil {
		t.Fatalf("rendering %s: %v", c, err)
	}
	return objs
}

// namespaceOf is where the tests install each chart: the hub anywhere, the
// agent where it must be.
var namespaceOf = map[Chart]string{Hub: "corral-ns", Agent: AgentNamespace}

var agentValues = map[string]any{"clusterName": "cluster1", "bootstrapHubKubeconfig": "apiVersion: v1\nkind: Config\n"}

func find(t *testing.T, objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	t.Fatalf("no %s %s among the rendered objects", kind, name)
	return nil
}

func TestDeploymentsAreRestrictedHAAndOfTheVersion(t *testing.T) {
	for chart, values := range map[Chart]map[string]any{Hub: nil, Agent: agentValues} {
		name := map[Chart]string{Hub: HubDeployment, Agent: AgentDeployment}[chart]
		objs := render(t, chart, values)
		d := find(t, objs, "Deployment", name)
		if d.GetNamespace() != namespaceOf[chart] {
			t.Errorf("%s: Deployment in %q, want the release namespace", chart, d.GetNamespace())
		}
		if r, _, _ := unstructured.NestedInt64(d.Object, "spec", "replicas"); r != 2 {
			t.Errorf("%s: %d replicas, want 2", chart, r)
		}
		pod, _, _ := unstructured.NestedMap(d.Object, "spec", "template", "spec")
		container := pod["containers"].([]any)[0].(map[string]any)
		if got := container["image"]; got != "ghcr.io/corral-dev/corral:v9.8.7" {
			t.Errorf("%s: image %v, want the version's", chart, got)
		}
		for path, want := range map[string]any{
			"securityContext.runAsNonRoot":                          true,
			"securityContext.runAsUser":                             int64(65532),
			"securityContext.seccompProfile.type":                   "RuntimeDefault",
			"containers.0.securityContext.readOnlyRootFilesystem":   true,
			"containers.0.securityContext.allowPrivilegeEscalation": false,
			"containers.0.securityContext.capabilities.drop.0":      "ALL",
			"containers.0.livenessProbe.httpGet.path":               "/healthz",
			"containers.0.readinessProbe.httpGet.path":              "/readyz",
		} {
			if got := lookup(pod, path); got != want {
				t.Errorf("%s: pod %s = %v, want %v", chart, path, got, want)
			}
		}
		args := strings.Join(toStrings(container["args"]), " ")
		for _, want := range []string{"--leader-elect ", "--leader-elect-namespace=" + namespaceOf[chart], "--health-probe-bind-address=:8081"} {
			if !strings.Contains(args, want) {
				t.Errorf("%s: args %q lack %q", chart, args, want)
			}
		}
		find(t, objs, "PodDisruptionBudget", name)
		if got := d.GetLabels()["app.kubernetes.io/managed-by"]; got != ManagedBy {
			t.Errorf("%s: managed-by %q, want %q when corral renders", chart, got, ManagedBy)
		}
	}
}

func TestOneReplicaHasNoDisruptionBudget(t *testing.T) {
	objs := render(t, Hub, map[string]any{"replicas": 1})
	find(t, objs, "Deployment", HubDeployment)
	for _, o := range objs {
		if o.GetKind() == "PodDisruptionBudget" {
			t.Fatal("a one-replica hub has a PodDisruptionBudget: it would block every node drain")
		}
	}
}

func TestHubWithoutDeploymentIsTheBootstrapIdentityAndTheClustersRole(t *testing.T) {
	var got []string
	for _, o := range render(t, Hub, map[string]any{"deployment": false}) {
		got = append(got, o.GetKind()+" "+o.GetName())
	}
	want := []string{
		"Namespace open-cluster-management",
		"ServiceAccount agent-registration-bootstrap",
		"ClusterRole system:open-cluster-management:bootstrap",
		"ClusterRole open-cluster-management:managedcluster:registration",
		"ClusterRoleBinding system:open-cluster-management:bootstrap",
	}
	if !slices.Equal(got, want) {
		t.Errorf("deployment=false renders %q, want %q", got, want)
	}
}

func TestImageDigestWinsOverTag(t *testing.T) {
	digest := "sha256:" + strings.Repeat("ab", 32)
	d := find(t, render(t, Hub, map[string]any{"image": map[string]any{"repository": "r.example/corral", "tag": "x", "digest": digest}}), "Deployment", HubDeployment)
	pod, _, _ := unstructured.NestedMap(d.Object, "spec", "template", "spec")
	if got := lookup(pod, "containers.0.image"); got != "r.example/corral@"+digest {
		t.Errorf("image %v, want the digest", got)
	}
}

func TestAgentRefusesMissingOrBadValuesInOneLine(t *testing.T) {
	for name, tc := range map[string]struct {
		values map[string]any
		want   string
	}{
		"no cluster name":   {map[string]any{"bootstrapHubKubeconfig": "x"}, "clusterName is required"},
		"a bad name":        {map[string]any{"clusterName": "Cluster_1", "bootstrapHubKubeconfig": "x"}, `clusterName "Cluster_1" is not a DNS-1123 label`},
		"no bootstrap":      {map[string]any{"clusterName": "c1"}, "bootstrapHubKubeconfig is required"},
		"another namespace": {map[string]any{"clusterName": "c1", "bootstrapHubKubeconfig": "x", "ns": "agents"}, `the agent is installed in open-cluster-management-agent, where it keeps its hub identity`},
	} {
		ns := AgentNamespace
		if n, ok := tc.values["ns"].(string); ok {
			ns = n
		}
		_, err := Agent.Render(Release{Name: "a", Namespace: ns, Values: tc.values})
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "templates/") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line saying %q without template positions", name, err, tc.want)
		}
	}
}

func TestAgentPassesClusterMetaSorted(t *testing.T) {
	values := map[string]any{"clusterLabels": map[string]any{"zone": "b", "env": "prod"}}
	for k, v := range agentValues {
		values[k] = v
	}
	d := find(t, render(t, Agent, values), "Deployment", AgentDeployment)
	pod, _, _ := unstructured.NestedMap(d.Object, "spec", "template", "spec")
	args := toStrings(lookup(pod, "containers.0.args"))
	if !slices.Contains(args, "--cluster-labels=env=prod,zone=b") {
		t.Errorf("args %q lack --cluster-labels=env=prod,zone=b", args)
	}
	secret := find(t, render(t, Agent, agentValues), "Secret", "bootstrap-hub-kubeconfig")
	if _, ok, _ := unstructured.NestedString(secret.Object, "data", "kubeconfig"); !ok {
		t.Error("the bootstrap Secret has no kubeconfig key, the one OCM's agents and corral's read")
	}
}

// TestNoWildcardsInRBAC: every rule names its groups, resources and verbs,
// but one: the hub's read of every resource (get, list, watch), which the
// propagation addon's selector needs (docs/security.md says why).
func TestNoWildcardsInRBAC(t *testing.T) {
	for chart, values := range map[Chart]map[string]any{Hub: nil, Agent: agentValues} {
		checked, readAll := 0, 0
		for _, o := range render(t, chart, values) {
			rules, _, _ := unstructured.NestedSlice(o.Object, "rules")
			checked += len(rules)
			for i, r := range rules {
				rule := r.(map[string]any)
				if chart == Hub && o.GetKind() == "ClusterRole" && o.GetName() == HubDeployment && isReadAll(rule) {
					readAll++
					continue
				}
				for _, field := range []string{"apiGroups", "resources", "verbs", "resourceNames", "nonResourceURLs"} {
					if slices.Contains(toStrings(rule[field]), "*") {
						t.Errorf("%s %s %s rule %d: a wildcard in %s", chart, o.GetKind(), o.GetName(), i, field)
					}
				}
			}
		}
		if checked < 10 {
			t.Errorf("%s: only %d RBAC rules rendered: the test checks next to nothing", chart, checked)
		}
		if want := map[Chart]int{Hub: 1}[chart]; readAll != want {
			t.Errorf("%s: %d rules read every resource, want %d", chart, readAll, want)
		}
	}
}

// isReadAll says whether rule is exactly get, list and watch of every
// resource of every group.
func isReadAll(rule map[string]any) bool {
	return slices.Equal(toStrings(rule["apiGroups"]), []string{"*"}) &&
		slices.Equal(toStrings(rule["resources"]), []string{"*"}) &&
		slices.Equal(toStrings(rule["verbs"]), []string{"get", "list", "watch"}) &&
		rule["resourceNames"] == nil && rule["nonResourceURLs"] == nil
}

// TestHelmIgnoresTheCRDsPackage: the Go files beside the CRDs are not
// part of the chart.
func TestHelmIgnoresTheCRDsPackage(t *testing.T) {
	ignore, err := os.ReadFile("corral-hub/.helmignore")
	if err != nil || !strings.Contains(string(ignore), "*.go") {
		t.Fatalf("corral-hub/.helmignore (%v) does not ignore *.go: the crds package's files would ship in the chart", err)
	}
	crds, _ := filepath.Glob("corral-hub/crds/*.crd.yaml")
	if len(crds) == 0 {
		t.Fatal("corral-hub/crds holds no CRDs: run hack/update-crds.sh")
	}
}

func TestParseRefusesObjectsWithoutKindOrName(t *testing.T) {
	objs, err := Parse([]byte("---\n# nothing\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"))
	if err != nil || len(objs) != 1 {
		t.Fatalf("Parse = %d objects, %v; want the one ConfigMap", len(objs), err)
	}
	if _, err := Parse([]byte("apiVersion: v1\nkind: ConfigMap\n")); err == nil {
		t.Error("Parse took an object without a name")
	}
	if _, err := Parse([]byte("apiVersion: v1\nmetadata: {name: a}\n")); err == nil {
		t.Error("Parse took an object without a kind")
	}
}

// lookup follows a dotted path of map keys and list indexes.
func lookup(v any, path string) any {
	for _, part := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[part]
		case []any:
			i := 0
			for _, c := range part {
				i = i*10 + int(c-'0')
			}
			if i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func toStrings(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
