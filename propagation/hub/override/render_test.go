package override

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/corral-dev/corral/internal/clusterselector"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

func manifests(raws ...string) []workv1.Manifest {
	out := make([]workv1.Manifest, len(raws))
	for i, r := range raws {
		out[i] = workv1.Manifest{RawExtension: runtime.RawExtension{Raw: []byte(r)}}
	}
	return out
}

func TestRender(t *testing.T) {
	const ns = `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop"}}`
	revision := manifests(ns, deployment)
	eu := &clusterv1beta1.ClusterSelector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"region": "eu"}}}
	compiled, err := CompileSnapshots([]v1alpha1.OverrideSnapshot{
		{Name: "mirrors", ClusterScoped: true, Objects: []int32{1},
			Rules: []v1alpha1.OverrideRule{{Name: "eu", ClusterSelector: eu, Images: []v1alpha1.ImageOverride{{Registry: "mirror.eu.example"}}}}},
		{Name: "shop/web", Objects: []int32{1},
			Rules: []v1alpha1.OverrideRule{{SetLabels: map[string]string{"cluster": "${CLUSTER_NAME}"}}}},
	}, clusterselector.NewCompiler(nil))
	if err != nil {
		t.Fatal(err)
	}
	paris := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "paris", Labels: map[string]string{"region": "eu"}}}
	got, applied, err := compiled.Render(revision, paris)
	if err != nil {
		t.Fatal(err)
	}
	if string(got[0].Raw) != ns {
		t.Errorf("the namespace no rule changes: %s, want it as it was", got[0].Raw)
	}
	web := object(t, string(got[1].Raw))
	if image := get(t, web, "spec.template.spec.containers.0.image"); image != "mirror.eu.example/team/web:v1" {
		t.Errorf("paris's image: %v, want the EU mirror's", image)
	}
	if label := get(t, web, "metadata.labels.cluster"); label != "paris" {
		t.Errorf("paris's cluster label: %v", label)
	}
	want := map[int][]string{1: {"ClusterOverridePolicy mirrors, rule eu", "OverridePolicy shop/web, rule rule-0"}}
	if diff := cmp.Diff(want, applied); diff != "" {
		t.Errorf("applied (-want +got):\n%s", diff)
	}
	if string(revision[1].Raw) != deployment {
		t.Errorf("Render changed the revision's manifest")
	}

	tokyo := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "tokyo", Labels: map[string]string{"region": "ap"}}}
	got, applied, err = compiled.Render(revision, tokyo)
	if err != nil {
		t.Fatal(err)
	}
	if image := get(t, object(t, string(got[1].Raw)), "spec.template.spec.containers.0.image"); image != "registry.example/team/web:v1" {
		t.Errorf("tokyo's image: %v, want the template's", image)
	}
	if len(applied[1]) != 1 {
		t.Errorf("tokyo's rules applied: %v, want the label's only", applied)
	}
}

func TestRenderRefuses(t *testing.T) {
	for name, tc := range map[string]struct {
		snap v1alpha1.OverrideSnapshot
		want string
	}{
		"a rule that cannot apply": {snap: v1alpha1.OverrideSnapshot{Name: "shop/web", Objects: []int32{0},
			Rules: []v1alpha1.OverrideRule{{Name: "zone", SetLabels: map[string]string{"zone": "${CLUSTER_LABEL:zone}"}}}},
			want: "OverridePolicy shop/web, rule zone: cluster east has no label zone"},
		"an object the revision does not have": {snap: v1alpha1.OverrideSnapshot{Name: "shop/web", Objects: []int32{3},
			Rules: []v1alpha1.OverrideRule{{SetLabels: map[string]string{"a": "b"}}}},
			want: "OverridePolicy shop/web, rule -: object 3: the revision has 1"},
	} {
		t.Run(name, func(t *testing.T) {
			compiled, err := CompileSnapshots([]v1alpha1.OverrideSnapshot{tc.snap}, clusterselector.NewCompiler(nil))
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = compiled.Render(manifests(deployment), east)
			var oe *Error
			if !errors.As(err, &oe) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Render: %v, want an *Error saying %q", err, tc.want)
			}
		})
	}
	_, err := CompileSnapshots([]v1alpha1.OverrideSnapshot{{Name: "shop/web", Objects: []int32{0},
		Rules: []v1alpha1.OverrideRule{{Name: "bad", ClusterSelector: &clusterv1beta1.ClusterSelector{
			CelSelector: clusterv1beta1.ClusterCelSelector{CelExpressions: []string{"=="}}}}}}}, clusterselector.NewCompiler(nil))
	if err == nil || !strings.HasPrefix(err.Error(), "OverridePolicy shop/web, rule bad: ") {
		t.Errorf("CompileSnapshots of a bad selector: %v, want the snapshot's policy name and the rule", err)
	}
}
