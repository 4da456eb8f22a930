package scale_test

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"
	workclient "open-cluster-management.io/api/client/work/clientset/versioned"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
)

// workloadNamespace holds the benchmark's Placement and rollout.
const workloadNamespace = "scale"

// workload is what the benchmark measures on the live fleet: one
// Placement choosing placed of the clusters by their allocatable CPU and
// memory, and one ManifestWorkReplicaSet (a ConfigMap) rolled out
// progressively, a tenth of them at a time, to the clusters it chose,
// whose simulated work agents report each work applied and available.
type workload struct {
	admin  *rest.Config
	placed int
	// placement is from the Placement's creation until its decisions
	// name placed clusters; rollout from the ManifestWorkReplicaSet's
	// creation until every one of its works is reported available.
	placement, rollout time.Duration
	err                error
}

// run is simulate.Options.Then: it measures the workload, or notes why
// it could not.
func (w *workload) run(ctx context.Context) {
	w.err = w.measure(ctx)
}

func (w *workload) measure(ctx context.Context) error {
	kube := kubernetes.NewForConfigOrDie(w.admin)
	clusters := clusterclient.NewForConfigOrDie(w.admin)
	works := workclient.NewForConfigOrDie(w.admin)
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: workloadNamespace}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	binding := &clusterv1beta2.ManagedClusterSetBinding{ObjectMeta: metav1.ObjectMeta{Name: "global", Namespace: workloadNamespace},
		Spec: clusterv1beta2.ManagedClusterSetBindingSpec{ClusterSet: "global"}}
	if _, err := clusters.ClusterV1beta2().ManagedClusterSetBindings(workloadNamespace).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		return err
	}
	n := int32(w.placed) //nolint:gosec // at most the fleet's size
	placement := &clusterv1beta1.Placement{
		ObjectMeta: metav1.ObjectMeta{Name: "scale", Namespace: workloadNamespace},
		Spec: clusterv1beta1.PlacementSpec{
			NumberOfClusters: &n,
			ClusterSets:      []string{"global"},
			PrioritizerPolicy: clusterv1beta1.PrioritizerPolicy{Mode: clusterv1beta1.PrioritizerPolicyModeAdditive, Configurations: []clusterv1beta1.PrioritizerConfig{
				{ScoreCoordinate: &clusterv1beta1.ScoreCoordinate{Type: clusterv1beta1.ScoreCoordinateTypeBuiltIn, BuiltIn: "ResourceAllocatableCPU"}, Weight: 2},
				{ScoreCoordinate: &clusterv1beta1.ScoreCoordinate{Type: clusterv1beta1.ScoreCoordinateTypeBuiltIn, BuiltIn: "ResourceAllocatableMemory"}, Weight: 1},
			}},
		},
	}
	begin := time.Now()
	if _, err := clusters.ClusterV1beta1().Placements(workloadNamespace).Create(ctx, placement, metav1.CreateOptions{}); err != nil {
		return err
	}
	err := poll(ctx, 10*time.Minute, func() (bool, error) {
		decisions, err := clusters.ClusterV1beta1().PlacementDecisions(workloadNamespace).List(ctx,
			metav1.ListOptions{LabelSelector: clusterv1beta1.PlacementLabel + "=scale"})
		if err != nil {
			return false, err
		}
		chosen := 0
		for _, d := range decisions.Items {
			chosen += len(d.Status.Decisions)
		}
		return chosen == w.placed, nil
	})
	if err != nil {
		return fmt.Errorf("the Placement did not choose %d clusters: %w", w.placed, err)
	}
	w.placement = time.Since(begin)

	configMap := runtime.RawExtension{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"scale","namespace":"default"},"data":{"fleet":"simulated"}}`)}
	mwrs := &workv1alpha1.ManifestWorkReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "scale", Namespace: workloadNamespace},
		Spec: workv1alpha1.ManifestWorkReplicaSetSpec{
			ManifestWorkTemplate: workv1.ManifestWorkSpec{Workload: workv1.ManifestsTemplate{Manifests: []workv1.Manifest{{RawExtension: configMap}}}},
			PlacementRefs: []workv1alpha1.LocalPlacementReference{{Name: "scale", RolloutStrategy: clusterv1alpha1.RolloutStrategy{
				Type:        clusterv1alpha1.Progressive,
				Progressive: &clusterv1alpha1.RolloutProgressive{MaxConcurrency: intstr.FromString("10%")},
			}}},
		},
	}
	begin = time.Now()
	if _, err := works.WorkV1alpha1().ManifestWorkReplicaSets(workloadNamespace).Create(ctx, mwrs, metav1.CreateOptions{}); err != nil {
		return err
	}
	err = poll(ctx, 20*time.Minute, func() (bool, error) {
		got, err := works.WorkV1alpha1().ManifestWorkReplicaSets(workloadNamespace).Get(ctx, "scale", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return got.Status.Summary.Available == w.placed, nil
	})
	if err != nil {
		return fmt.Errorf("the ManifestWorkReplicaSet did not roll out to %d clusters: %w", w.placed, err)
	}
	w.rollout = time.Since(begin)
	return nil
}

// poll calls done every quarter second until it says so, it fails, or
// within ends (or ctx). A benchmark's measure, not a test's: a quarter
// second is finer than what it times.
func poll(ctx context.Context, within time.Duration, done func() (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, err := done()
		if ok || err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}
