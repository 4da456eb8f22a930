package install

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/corral-dev/corral/deploy/charts"
	"github.com/corral-dev/corral/registration/hub/managedcluster"
)

func TestSplitImage(t *testing.T) {
	digest := "sha256:" + strings.Repeat("0f", 32)
	for ref, want := range map[string]map[string]any{
		"ghcr.io/corral-dev/corral:v1.2.3": {"repository": "ghcr.io/corral-dev/corral", "tag": "v1.2.3"},
		"localhost:5000/corral:dev":        {"repository": "localhost:5000/corral", "tag": "dev"},
		"r.example/corral@" + digest:       {"repository": "r.example/corral", "digest": digest},
		"r.example/corral:v1@" + digest:    {"repository": "r.example/corral", "tag": "v1", "digest": digest},
	} {
		got, err := splitImage(ref)
		if err != nil {
			t.Errorf("%s: %v", ref, err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", ref, diff)
		}
	}
	for ref, want := range map[string]string{
		"localhost:5000/corral": "names no tag or digest",
		"corral@sha256:abc":     "the digest is not",
		":v1":                   "names no repository",
	} {
		if _, err := splitImage(ref); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", ref, err, want)
		}
	}
}

func TestHubObjectsAreInApplyOrder(t *testing.T) {
	objs, err := Hub{Version: "v1.0.0", Deployment: true, Image: "r.example/corral:v1.0.1", Replicas: 3}.Objects()
	if err != nil {
		t.Fatal(err)
	}
	first, last := map[string]int{}, map[string]int{}
	for i, o := range objs {
		if _, ok := first[o.GetKind()]; !ok {
			first[o.GetKind()] = i
		}
		last[o.GetKind()] = i
	}
	for _, order := range [][2]string{{"CustomResourceDefinition", "Namespace"}, {"Namespace", "ServiceAccount"}, {"ClusterRole", "Deployment"}, {"ServiceAccount", "Deployment"}} {
		before, ok1 := last[order[0]]
		after, ok2 := first[order[1]]
		if !ok1 || !ok2 {
			t.Errorf("no %s or no %s among the hub's objects", order[0], order[1])
			continue
		}
		if before > after {
			t.Errorf("a %s comes after a %s", order[0], order[1])
		}
	}
	if objs[0].GetKind() != "CustomResourceDefinition" {
		t.Errorf("the first object is a %s, want the CRDs first", objs[0].GetKind())
	}
	var ns, deploy bool
	for _, o := range objs {
		switch {
		case o.GetKind() == "Namespace" && o.GetName() == charts.HubNamespace:
			ns = true
		case o.GetKind() == "Deployment":
			deploy = true
			var d appsv1.Deployment
			b, _ := json.Marshal(o.Object)
			if err := json.Unmarshal(b, &d); err != nil {
				t.Fatal(err)
			}
			if d.Namespace != charts.HubNamespace || *d.Spec.Replicas != 3 || d.Spec.Template.Spec.Containers[0].Image != "r.example/corral:v1.0.1" {
				t.Errorf("the hub Deployment is in %s with %d replicas of %s; want %s, 3, the --image", d.Namespace, *d.Spec.Replicas, d.Spec.Template.Spec.Containers[0].Image, charts.HubNamespace)
			}
			if d.Labels[VersionLabel] != "v1.0.0" {
				t.Errorf("the hub Deployment says version %q, want v1.0.0", d.Labels[VersionLabel])
			}
		}
	}
	if !ns || !deploy {
		t.Errorf("the hub's objects lack its namespace (%v) or Deployment (%v)", ns, deploy)
	}
}

func TestPrintYAMLReadsBackAsTheSameObjects(t *testing.T) {
	objs, err := Agent{Version: "v1", ClusterName: "c1", BootstrapKubeconfig: []byte("kind: Config\n")}.Objects()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Print(&out, "yaml", objs); err != nil {
		t.Fatal(err)
	}
	back, err := charts.Parse(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(objs) {
		t.Fatalf("%d objects read back, %d printed", len(back), len(objs))
	}
	for i := range objs {
		if diff := cmp.Diff(objs[i].Object, back[i].Object); diff != "" {
			t.Errorf("%s changed on the way (-printed +read):\n%s", Describe(objs[i]), diff)
		}
	}
	if err := Print(&out, "table", objs); err == nil {
		t.Error("Print took format table")
	}
}

func TestRolloutState(t *testing.T) {
	for name, tc := range map[string]struct {
		status appsv1.DeploymentStatus
		gen    int64
		done   bool
	}{
		"rolled out":        {appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 2, UpdatedReplicas: 2, AvailableReplicas: 2}, 2, true},
		"not yet observed":  {appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 2, UpdatedReplicas: 2, AvailableReplicas: 2}, 2, false},
		"old replica left":  {appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 3, UpdatedReplicas: 2, AvailableReplicas: 3}, 2, false},
		"one not available": {appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 2, UpdatedReplicas: 2, AvailableReplicas: 1}, 2, false},
	} {
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Generation: tc.gen}, Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](2)}, Status: tc.status}
		if state, done := rolloutState(d); done != tc.done {
			t.Errorf("%s: done = %v (%s), want %v", name, done, state, tc.done)
		}
	}
}

// TestHubInstallsTheRoleEveryClusterNamespaceBinds: the hub binds it and
// no longer makes it, so an install without it leaves agents unable to
// heartbeat.
func TestHubInstallsTheRoleEveryClusterNamespaceBinds(t *testing.T) {
	for _, deployment := range []bool{false, true} {
		objs, err := Hub{Version: "v1", Deployment: deployment}.Objects()
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, o := range objs {
			found = found || (o.GetKind() == "ClusterRole" && o.GetName() == managedcluster.RegistrationClusterRole)
		}
		if !found {
			t.Errorf("deployment=%v: no ClusterRole %s among the hub's objects", deployment, managedcluster.RegistrationClusterRole)
		}
	}
}
