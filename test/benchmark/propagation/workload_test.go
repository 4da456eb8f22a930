package propagation_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/test/benchmark/measure"
	"github.com/corral-dev/corral/test/benchmark/setup"
)

const (
	// namespace holds the templates, the propagations and the placement.
	namespace = "bench"
	placement = "ten"
	clusters  = 10
	replicas  = 2
	// userWorkers is how many Propagations the benchmark creates, and
	// templates it edits, at once: a user's (or a GitOps tool's) pace,
	// the same on both sides.
	userWorkers = 32
)

// images are the templates' image before and after the edit.
var images = [...]string{"registry.example/web:v1", "registry.example/web:v2"}

// propagationCounts are $PROPAGATIONS (comma-separated), 1000 by default.
func propagationCounts() []int {
	var out []int
	for _, s := range strings.Split(os.Getenv("PROPAGATIONS"), ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return []int{1000}
	}
	return out
}

// clusterName is cluster i's name (and its namespace's).
func clusterName(i int) string { return fmt.Sprintf("cluster%02d", i) }

// templateName is the name of template i and of its Propagation.
func templateName(i int) string { return fmt.Sprintf("web%05d", i) }

func newScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, v1alpha1.Install, workv1.Install, clusterv1beta1.Install} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}

// fixture is a hub control plane prepared as `corral init` does, with the
// workload's templates, its placement decided, the clusters' namespaces,
// an admin client whose limits are far above what is measured, and the
// watcher and simulated work agent running.
type fixture struct {
	*setup.ControlPlane
	c     client.Client
	n     int
	watch *watcher
}

// prepare starts a hub with n templates and the placement, watched, and
// the simulated agent; hooks are the floor's (nil for corral's hub).
func prepare(ctx context.Context, b *testing.B, n int, hooks *hooks) *fixture {
	b.Helper()
	hub := setup.StartHub(ctx, b)
	c, err := client.New(hub.Admin, client.Options{Scheme: newScheme()})
	must(b, err)
	f := &fixture{ControlPlane: hub, c: c, n: n}
	f.createWorkload(ctx, b)
	f.watch = startWatch(ctx, b, f, hooks)
	return f
}

// createWorkload creates the namespaces, the placement and its decision
// of ten clusters (as the scheduler would write it: no scheduler runs),
// and the templates.
func (f *fixture) createWorkload(ctx context.Context, b *testing.B) {
	b.Helper()
	must(b, f.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}))
	for i := range clusters {
		must(b, f.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: clusterName(i)}}))
	}
	must(b, f.c.Create(ctx, &clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: placement},
		Spec: clusterv1beta1.PlacementSpec{NumberOfClusters: ptr.To[int32](clusters)}}))
	pd := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: placement + "-decision-1",
		Labels: map[string]string{clusterv1beta1.PlacementLabel: placement, clusterv1beta1.DecisionGroupIndexLabel: "0"}}}
	must(b, f.c.Create(ctx, pd))
	for i := range clusters {
		pd.Status.Decisions = append(pd.Status.Decisions, clusterv1beta1.ClusterDecision{ClusterName: clusterName(i), Reason: "bench"})
	}
	must(b, f.c.Status().Update(ctx, pd))
	must(b, measure.Parallel(userWorkers, f.n, func(i int) error { return f.c.Create(ctx, template(i)) }))
}

// template is Deployment i, of 2 replicas.
func template(i int) *appsv1.Deployment {
	labels := map[string]string{"app": templateName(i)}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: templateName(i), Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: images[0],
					Ports: []corev1.ContainerPort{{ContainerPort: 8080}}}}},
			},
		},
	}
}

// propagation is Propagation i: template i to the placement, rolled out
// to all its clusters at once.
func propagation(i int) *v1alpha1.Propagation {
	return &v1alpha1.Propagation{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: templateName(i)},
		Spec: v1alpha1.PropagationSpec{
			ResourceSelectors: []v1alpha1.ResourceSelector{{Group: "apps", Version: "v1", Kind: "Deployment", Name: templateName(i)}},
			PlacementRefs: []v1alpha1.LocalPlacementReference{{Name: placement,
				RolloutStrategy: clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All}}},
		},
	}
}

// createPropagations creates the n Propagations, userWorkers at a time,
// telling created of each.
func (f *fixture) createPropagations(ctx context.Context, created func(*v1alpha1.Propagation)) error {
	return measure.Parallel(userWorkers, f.n, func(i int) error {
		p := propagation(i)
		if err := f.c.Create(ctx, p); err != nil {
			return err
		}
		if created != nil {
			created(p)
		}
		return nil
	})
}

// editTemplates changes every template's image, userWorkers at a time,
// telling edited of each as the API server returned it.
func (f *fixture) editTemplates(ctx context.Context, edited func(*appsv1.Deployment)) error {
	patch := fmt.Appendf(nil, `{"spec":{"template":{"spec":{"containers":[{"name":"web","image":%q}]}}}}`, images[1])
	return measure.Parallel(userWorkers, f.n, func(i int) error {
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: templateName(i)}}
		if err := f.c.Patch(ctx, d, client.RawPatch(types.StrategicMergePatchType, patch)); err != nil {
			return err
		}
		if edited != nil {
			edited(d)
		}
		return nil
	})
}

func must(b *testing.B, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
}
