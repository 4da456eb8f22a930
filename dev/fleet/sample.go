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
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
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
	how, err := createMissing(ctx, hub, "sample app", objs...)
	if err != nil {
		return err
	}
	fmt.Fprintf(progress, "sample app: Placement %s/%s and ManifestWorkReplicaSet %s/%s %s\n", SampleNamespace, SampleApp, SampleNamespace, SampleApp, how)
	works, err := waitSampleReady(ctx, hub, clusters, progress)
	if err != nil {
		return err
	}
	workcli.PrintTable(progress, works)
	return nil
}

// createMissing creates objs on the hub, leaving those that exist (a
// reused fleet) as they are, and says "created", or "already there" when
// all were; what names the sample in an error.
func createMissing(ctx context.Context, hub client.Client, what string, objs ...client.Object) (string, error) {
	created := 0
	for _, o := range objs {
		err := hub.Create(ctx, o)
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return "", fmt.Errorf("%s: creating %T %s: %w", what, o, o.GetName(), err)
		}
		if err == nil {
			created++
		}
	}
	if created == 0 {
		return "already there", nil
	}
	return "created", nil
}

// samplePort is the port the sample app serves on.
const samplePort = 8080

// sampleManifests are what the sample's work delivers: the app's
// Deployment, a Service in front of it, and its service account with the
// right to read the ClusterClaim it answers with.
func sampleManifests() []client.Object {
	labels := map[string]string{"app": SampleApp}
	meta := metav1.ObjectMeta{Namespace: SampleNamespace, Name: SampleApp}
	clusterMeta := metav1.ObjectMeta{Name: "corral-sample-app"}
	probe := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(samplePort)}}, PeriodSeconds: 2}
	return []client.Object{
		&corev1.ServiceAccount{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"}, ObjectMeta: meta},
		&rbacv1.ClusterRole{
			TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
			ObjectMeta: clusterMeta,
			Rules: []rbacv1.PolicyRule{{
				APIGroups: []string{clusterv1alpha1.GroupName}, Resources: []string{"clusterclaims"},
				ResourceNames: []string{ClusterIDClaim}, Verbs: []string{"get"},
			}},
		},
		&rbacv1.ClusterRoleBinding{
			TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"},
			ObjectMeta: clusterMeta,
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: clusterMeta.Name},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: SampleNamespace, Name: SampleApp}},
		},
		&appsv1.Deployment{
			TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
			ObjectMeta: meta,
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To[int32](SampleReplicas),
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{
						ServiceAccountName: SampleApp,
						Containers: []corev1.Container{{
							Name: SampleApp, Image: SampleImage, ImagePullPolicy: corev1.PullNever,
							Ports:          []corev1.ContainerPort{{Name: "http", ContainerPort: samplePort}},
							ReadinessProbe: probe,
						}},
					},
				},
			},
		},
		&corev1.Service{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
			ObjectMeta: meta,
			Spec: corev1.ServiceSpec{
				Selector: labels,
				Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http")}},
			},
		},
	}
}

// sampleReplicaSet is the sample's ManifestWorkReplicaSet: sampleManifests,
// with the Deployment's well-known status (ready replicas among it) fed
// back.
func sampleReplicaSet() (*workv1alpha1.ManifestWorkReplicaSet, error) {
	var manifests []workv1.Manifest
	for _, o := range sampleManifests() {
		raw, err := json.Marshal(o)
		if err != nil {
			return nil, err
		}
		manifests = append(manifests, workv1.Manifest{RawExtension: runtime.RawExtension{Raw: raw}})
	}
	return &workv1alpha1.ManifestWorkReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: SampleNamespace, Name: SampleApp},
		Spec: workv1alpha1.ManifestWorkReplicaSetSpec{
			PlacementRefs: []workv1alpha1.LocalPlacementReference{{Name: SampleApp}},
			ManifestWorkTemplate: workv1.ManifestWorkSpec{
				Workload: workv1.ManifestsTemplate{Manifests: manifests},
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
