package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/kubectl/pkg/polymorphichelpers"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/propagation"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// The propagated sample: a plain Deployment on the hub, PropagatedApp in
// SampleNamespace, which a Propagation of the same name delivers to the
// sample's Placement (every managed cluster). The hub runs no workload
// controllers, so the Deployment is only a template there; its `.status`
// is the clusters' summed, which is what `kubectl rollout status` on the
// hub reads.
const (
	PropagatedApp = "hello-hub"
	// PropagatedReplicas is the template's replicas: each cluster runs
	// that many.
	PropagatedReplicas = 2
)

// wantsPropagated says whether the fleet also shows the propagation addon
// with the sample: the sample's Placement chooses the clusters.
func wantsPropagated(opts Options) bool {
	return wantsSample(opts) && slices.Contains(addons.Names(opts.Addons), propagation.AddonName)
}

// createPropagated creates the template and its Propagation; what exists
// already (a reused fleet) is left as it is.
func createPropagated(ctx context.Context, hub client.Client, progress io.Writer) error {
	how, err := createMissing(ctx, hub, "propagated app", propagatedDeployment(), propagatedPropagation())
	if err != nil {
		return err
	}
	fmt.Fprintf(progress, "propagated app: Deployment and Propagation %s/%s on the hub %s\n", SampleNamespace, PropagatedApp, how)
	return nil
}

// propagatedDeployment is the hub template: the sample app's image, under
// its own name, with the namespace's default service account (it answers
// without its cluster's name, which it may not read).
func propagatedDeployment() *appsv1.Deployment {
	labels := map[string]string{"app": PropagatedApp}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: SampleNamespace, Name: PropagatedApp},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](PropagatedReplicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: PropagatedApp, Image: SampleImage, ImagePullPolicy: corev1.PullNever,
					Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: samplePort}},
				}}},
			},
		},
	}
}

// propagatedPropagation delivers the template where the sample's Placement
// says, all clusters at once.
func propagatedPropagation() *v1alpha1.Propagation {
	return &v1alpha1.Propagation{
		ObjectMeta: metav1.ObjectMeta{Namespace: SampleNamespace, Name: PropagatedApp},
		Spec: v1alpha1.PropagationSpec{
			ResourceSelectors: []v1alpha1.ResourceSelector{{Group: appsv1.GroupName, Version: "v1", Kind: "Deployment", Name: PropagatedApp}},
			PlacementRefs:     []v1alpha1.LocalPlacementReference{{Name: SampleApp}},
		},
	}
}

// waitRolledOut waits until kubectl's own rollout status check passes on
// the hub template, printing its message as it changes, and then what
// `kubectl rollout status` on the hub prints.
func waitRolledOut(ctx context.Context, hub client.Client, progress io.Writer) error {
	viewer, err := polymorphichelpers.StatusViewerFor(appsv1.SchemeGroupVersion.WithKind("Deployment").GroupKind())
	if err != nil {
		return err
	}
	var msg string
	err = wait.PollUntilContextTimeout(ctx, time.Second, sampleTimeout, true, func(ctx context.Context) (bool, error) {
		d := &appsv1.Deployment{}
		if err := hub.Get(ctx, client.ObjectKey{Namespace: SampleNamespace, Name: PropagatedApp}, d); err != nil {
			return false, nil //nolint:nilerr // the hub may be busy: look again
		}
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(d)
		if err != nil {
			return false, err
		}
		m, done, err := viewer.Status(&unstructured.Unstructured{Object: u}, 0)
		if err != nil {
			return false, nil //nolint:nilerr // not yet observed: look again
		}
		if m != msg {
			msg = m
			if !done {
				fmt.Fprintf(progress, "propagated app: %s", m)
			}
		}
		return done, nil
	})
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("propagated app: not rolled out on every cluster after %s: see 'corral propagation get %s -n %s'", sampleTimeout, PropagatedApp, SampleNamespace)
		}
		return fmt.Errorf("propagated app: %w", err)
	}
	fmt.Fprintf(progress, "propagated app: kubectl rollout status deployment/%s on the hub: %s", PropagatedApp, msg)
	return nil
}
