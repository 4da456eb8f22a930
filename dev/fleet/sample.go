package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/placement"
	"github.com/corral-dev/corral/work"
	workcli "github.com/corral-dev/corral/work/cli"
)

// The sample app every fleet with the work and placement addons ends with:
// a Deployment placed on every managed cluster by a Placement and delivered
// by a ManifestWorkReplicaSet, both named SampleApp in namespace
// SampleNamespace on the hub, whose ready replicas come back as status
// feedback.
const (
	SampleApp       = "hello"
	SampleNamespace = "default"
	// SampleReplicas is the Deployment's replicas on each cluster.
	SampleReplicas = 2
	// sampleClusterSet is the set the sample's Placement draws from: every
	// cluster without a set of its own is in it.
	sampleClusterSet = "default"
	// sampleTimeout bounds the wait for the app to be ready everywhere.
	sampleTimeout = 3 * time.Minute
)

// wantsSample says whether the fleet's addons can place and deliver the
// sample app.
func wantsSample(opts Options) bool {
	names := addons.Names(opts.Addons)
	return opts.Clusters > 0 && slices.Contains(names, work.AddonName) && slices.Contains(names, placement.AddonName)
}

// deploySample binds the default cluster set to the sample's namespace,
// places the app on every cluster and delivers it, then waits until it is
// ready on every one of clusters and prints its status. What exists
// already (a reused fleet) is left as it is.
func deploySample(ctx context.Context, hub client.Client, clusters []string, progress io.Writer) error {
	set, err := sampleReplicaSet()
	if err != nil {
		return err
	}
	objs := []client.Object{
		&clusterv1beta2.ManagedClusterSetBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: SampleNamespace, Name: sampleClusterSet},
			Spec:       clusterv1beta2.ManagedClusterSetBindingSpec{ClusterSet: sampleClusterSet},
		},
		&clusterv1beta1.Placement{
			ObjectMeta: metav1.ObjectMeta{Namespace: SampleNamespace, Name: SampleApp},
			Spec:       clusterv1beta1.PlacementSpec{ClusterSets: []string{sampleClusterSet}},
		},
		set,
	}
	created := 0
	for _, o := range objs {
		err := hub.Create(ctx, o)
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("sample app: creating %T %s: %w", o, o.GetName(), err)
		}
		if err == nil {
			created++
		}
	}
	how := "created"
	if created == 0 {
		how = "already there"
	}
	fmt.Fprintf(progress, "sample app: Placement %s/%s and ManifestWorkReplicaSet %s/%s %s\n", SampleNamespace, SampleApp, SampleNamespace, SampleApp, how)
	works, err := waitSampleReady(ctx, hub, clusters, progress)
	if err != nil {
		return err
	}
	workcli.PrintTable(progress, works)
	return nil
}

// sampleReplicaSet is the sample's ManifestWorkReplicaSet: the Deployment,
// with its well-known status (ready replicas among it) fed back.
func sampleReplicaSet() (*workv1alpha1.ManifestWorkReplicaSet, error) {
	labels := map[string]string{"app": SampleApp}
	deploy := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Namespace: SampleNamespace, Name: SampleApp},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](SampleReplicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: SampleApp, Image: "nginx:1.27"}}},
			},
		},
	}
	raw, err := json.Marshal(deploy)
	if err != nil {
		return nil, err
	}
	return &workv1alpha1.ManifestWorkReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: SampleNamespace, Name: SampleApp},
		Spec: workv1alpha1.ManifestWorkReplicaSetSpec{
			PlacementRefs: []workv1alpha1.LocalPlacementReference{{Name: SampleApp}},
			ManifestWorkTemplate: workv1.ManifestWorkSpec{
				Workload: workv1.ManifestsTemplate{Manifests: []workv1.Manifest{{RawExtension: runtime.RawExtension{Raw: raw}}}},
				ManifestConfigs: []workv1.ManifestConfigOption{{
					ResourceIdentifier: workv1.ResourceIdentifier{Group: "apps", Resource: "deployments", Namespace: SampleNamespace, Name: SampleApp},
					FeedbackRules:      []workv1.FeedbackRule{{Type: workv1.WellKnownStatusType}},
				}},
			},
		},
	}, nil
}

// waitSampleReady waits until the sample's ManifestWork on every cluster
// reports the Deployment's ready replicas as SampleReplicas, saying how
// many are ready as that changes; it returns those works.
func waitSampleReady(ctx context.Context, hub client.Client, clusters []string, progress io.Writer) ([]workv1.ManifestWork, error) {
	var works []workv1.ManifestWork
	last := -1
	err := wait.PollUntilContextTimeout(ctx, time.Second, sampleTimeout, true, func(ctx context.Context) (bool, error) {
		list := &workv1.ManifestWorkList{}
		if err := hub.List(ctx, list, client.MatchingLabels{workv1alpha1.ManifestWorkReplicaSetControllerNameLabelKey: SampleNamespace + "." + SampleApp}); err != nil {
			return false, nil //nolint:nilerr // the hub may be busy: look again
		}
		works = list.Items
		ready := 0
		for _, w := range works {
			if slices.Contains(clusters, w.Namespace) && readyReplicas(w) == SampleReplicas {
				ready++
			}
		}
		if ready != last {
			fmt.Fprintf(progress, "sample app: ready on %d of %d clusters\n", ready, len(clusters))
			last = ready
		}
		return ready == len(clusters), nil
	})
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("sample app: not ready on every cluster after %s: see 'corral work get %s'", sampleTimeout, SampleApp)
		}
		return nil, fmt.Errorf("sample app: %w", err)
	}
	return works, nil
}

// readyReplicas is the Deployment's readyReplicas as its work feeds it
// back; -1 before it does.
func readyReplicas(w workv1.ManifestWork) int64 {
	for _, m := range w.Status.ResourceStatus.Manifests {
		if m.ResourceMeta.Kind != "Deployment" {
			continue
		}
		for _, v := range m.StatusFeedbacks.Values {
			if v.Name == "ReadyReplicas" && v.Value.Integer != nil {
				return *v.Value.Integer
			}
		}
	}
	return -1
}
