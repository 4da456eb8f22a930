package status

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/corral-dev/corral/propagation/hub/aggregate"
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
