package status

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/aggregate"
	workstatus "github.com/corral-dev/corral/work/agent/status"
)

func TestManifestConfigs(t *testing.T) {
	job := manifest(`{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"once","namespace":"shop"}}`)
	cases := map[string]struct {
		manifests []workv1.Manifest
		want      []workv1.ManifestConfigOption
	}{
		"no aggregated kind": {manifests: []workv1.Manifest{cmManifest}},
		"undecodable":        {manifests: []workv1.Manifest{manifest(`{`)}},
		"a Deployment among others, and a Job": {
			manifests: []workv1.Manifest{cmManifest, webManifest, job},
			want: []workv1.ManifestConfigOption{
				{ResourceIdentifier: webID, FeedbackRules: aggregate.FeedbackRules(appsv1.SchemeGroupVersion.WithKind("Deployment")), FeedbackScrapeType: workv1.FeedbackPollType},
				{ResourceIdentifier: workv1.ResourceIdentifier{Group: "batch", Resource: "jobs", Namespace: "shop", Name: "once"},
					FeedbackRules: aggregate.FeedbackRules(batchv1.SchemeGroupVersion.WithKind("Job")), FeedbackScrapeType: workv1.FeedbackPollType},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ManifestConfigs(tc.manifests)); diff != "" {
				t.Errorf("ManifestConfigs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRevisionFedBackByTheWorkAgent reads a delivered Deployment, labelled
// with its revision, with the rules ManifestConfigs gives, by corral's
// work agent's own reader (the same JSONPath dialect as OCM's agent): the
// label's escaped path returns the revision, and the member it makes is
// outdated against a newer one.
func TestRevisionFedBackByTheWorkAgent(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": "shop", "generation": int64(2),
			"labels": map[string]any{"app": "web", v1alpha1.LabelRevision: "3"}},
		"status": map[string]any{"observedGeneration": int64(2), "replicas": int64(1)},
	}}
	configs := ManifestConfigs([]workv1.Manifest{webManifest})
	if len(configs) != 1 {
		t.Fatalf("ManifestConfigs gave %d configs, want 1", len(configs))
	}
	fb, err := workstatus.Read(obj, configs[0].FeedbackRules, false)
	if err != nil {
		t.Fatalf("the work agent could not read the rules: %v", err)
	}
	for delivered, outdated := range map[int64]bool{3: false, 4: true} {
		m, err := aggregate.NewMember(fb, delivered)
		if err != nil {
			t.Fatal(err)
		}
		if m.Values[aggregate.FeedbackRevision] != "3" || m.Outdated != outdated {
			t.Errorf("delivered %d: revision %v, outdated %t; want 3, %t", delivered, m.Values[aggregate.FeedbackRevision], m.Outdated, outdated)
		}
	}
}
