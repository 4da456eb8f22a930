package fleet

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"k8s.io/utils/ptr"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/internal/testing/builder"
)

func TestWantsSample(t *testing.T) {
	cases := map[string]struct {
		addons   []string
		clusters int
		want     bool
	}{
		"work and placement":           {addons: []string{"work", "placement", "health"}, clusters: 2, want: true},
		"no placement to place it":     {addons: []string{"work", "health"}, clusters: 2},
		"no work to deliver it":        {addons: []string{"placement"}, clusters: 2},
		"no managed cluster to run it": {addons: []string{"work", "placement"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var selected []addons.Addon
			for _, a := range tc.addons {
				selected = append(selected, testAddon(a))
			}
			if got := wantsSample(Options{Addons: selected, Clusters: tc.clusters}); got != tc.want {
				t.Errorf("wantsSample = %v, want %v", got, tc.want)
			}
		})
	}
}

// sampleWork is the sample's ManifestWork on cluster as the work addon
// leaves it once the Deployment reports ready replicas.
func sampleWork(cluster string, ready int64) *workv1.ManifestWork {
	return builder.Work(cluster, SampleApp).Label(workv1alpha1.ManifestWorkReplicaSetControllerNameLabelKey, SampleNamespace+"."+SampleApp).
		ManifestStatus(workv1.ManifestCondition{
			ResourceMeta:    workv1.ManifestResourceMeta{Kind: "Deployment", Namespace: SampleNamespace, Name: SampleApp},
			StatusFeedbacks: workv1.StatusFeedbackResult{Values: []workv1.FeedbackValue{{Name: "ReadyReplicas", Value: workv1.FieldValue{Type: workv1.Integer, Integer: ptr.To(ready)}}}},
		}).Obj()
}

func TestDeploySampleCreatesItsObjectsAndReportsItReady(t *testing.T) {
	scheme, err := hubclient.Scheme()
	if err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(scheme).
		WithObjects(sampleWork("cluster1", SampleReplicas), sampleWork("cluster2", SampleReplicas)).Build()
	var progress bytes.Buffer
	if err := deploySample(context.Background(), c, []string{"cluster1", "cluster2"}, &progress); err != nil {
		t.Fatalf("deploySample: %v\n%s", err, progress.String())
	}
	for _, o := range []client.Object{&clusterv1beta2.ManagedClusterSetBinding{}, &clusterv1beta1.Placement{}, &workv1alpha1.ManifestWorkReplicaSet{}} {
		name := SampleApp
		if _, ok := o.(*clusterv1beta2.ManagedClusterSetBinding); ok {
			name = sampleClusterSet
		}
		if err := c.Get(context.Background(), client.ObjectKey{Namespace: SampleNamespace, Name: name}, o); err != nil {
			t.Errorf("%T %s: %v", o, name, err)
		}
	}
	set := &workv1alpha1.ManifestWorkReplicaSet{}
	_ = c.Get(context.Background(), client.ObjectKey{Namespace: SampleNamespace, Name: SampleApp}, set)
	if cfg := set.Spec.ManifestWorkTemplate.ManifestConfigs; len(cfg) != 1 || cfg[0].FeedbackRules[0].Type != workv1.WellKnownStatusType {
		t.Errorf("the Deployment's status is not fed back: %+v", cfg)
	}
	out := progress.String()
	for _, want := range []string{"ready on 2 of 2 clusters", "Deployment default/hello", "ReadyReplicas=2"} {
		if !strings.Contains(out, want) {
			t.Errorf("progress lacks %q:\n%s", want, out)
		}
	}
}

func TestReadyReplicasIsMinusOneUntilFedBack(t *testing.T) {
	if got := readyReplicas(workv1.ManifestWork{}); got != -1 {
		t.Errorf("readyReplicas of a work without feedback = %d, want -1", got)
	}
	if got := readyReplicas(*sampleWork("c", 1)); got != 1 {
		t.Errorf("readyReplicas = %d, want 1", got)
	}
}
