package fleet

import (
	"bytes"
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

func TestWantsPropagatedOnlyWithTheSampleAndTheAddon(t *testing.T) {
	with := func(names ...string) Options {
		var selected []addons.Addon
		for _, n := range names {
			selected = append(selected, testAddon(n))
		}
		return Options{Addons: selected, Clusters: 2}
	}
	if !wantsPropagated(with("work", "placement", "propagation")) {
		t.Error("wantsPropagated = false with work, placement and propagation")
	}
	if wantsPropagated(with("work", "placement")) {
		t.Error("wantsPropagated = true without the propagation addon")
	}
	if wantsPropagated(with("work", "propagation")) {
		t.Error("wantsPropagated = true without a placement to deliver by")
	}
}

func TestPropagatedCreatesTemplateAndPropagationAndWaitsForRolloutStatus(t *testing.T) {
	scheme, err := hubclient.Scheme()
	if err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithStatusSubresource(&appsv1.Deployment{}).Build()
	ctx := context.Background()
	var progress bytes.Buffer
	if err := createPropagated(ctx, c, &progress); err != nil {
		t.Fatal(err)
	}
	prop := &v1alpha1.Propagation{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: SampleNamespace, Name: PropagatedApp}, prop); err != nil {
		t.Fatal(err)
	}
	if refs := prop.Spec.PlacementRefs; len(refs) != 1 || refs[0].Name != SampleApp {
		t.Errorf("the Propagation's placements = %+v, want the sample's %q", refs, SampleApp)
	}
	d := &appsv1.Deployment{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: SampleNamespace, Name: PropagatedApp}, d); err != nil {
		t.Fatal(err)
	}
	// What the propagation addon writes once both clusters run it.
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: 4, UpdatedReplicas: 4, ReadyReplicas: 4, AvailableReplicas: 4}
	if err := c.Status().Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	if err := waitRolledOut(ctx, c, &progress); err != nil {
		t.Fatalf("waitRolledOut: %v\n%s", err, progress.String())
	}
	want := `kubectl rollout status deployment/hello-hub on the hub: deployment "hello-hub" successfully rolled out`
	if !strings.Contains(progress.String(), want) {
		t.Errorf("progress lacks %q:\n%s", want, progress.String())
	}
	progress.Reset()
	if err := createPropagated(ctx, c, &progress); err != nil || !strings.Contains(progress.String(), "already there") {
		t.Errorf("createPropagated again = %v, %q; want the objects left as they are", err, progress.String())
	}
}
