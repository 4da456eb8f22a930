package install

import (
	"context"
	"fmt"
	"io"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// WaitRollout waits up to timeout until the Deployment namespace/name runs
// its current spec on every replica: observed, updated, available, and no
// replica of an older spec left (what `kubectl rollout status` waits for).
// progress, when not nil, hears a line each time the counts change.
func WaitRollout(ctx context.Context, c client.Client, namespace, name string, timeout time.Duration, progress io.Writer) error {
	var last, state string
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		d := &appsv1.Deployment{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, d); err != nil {
			state = err.Error()
			return false, nil //nolint:nilerr // not there yet: poll on, state says why
		}
		var done bool
		state, done = rolloutState(d)
		if progress != nil && state != last {
			fmt.Fprintf(progress, "  %s\n", state)
		}
		last = state
		return done, nil
	})
	if err != nil {
		return fmt.Errorf("deployment %s/%s did not roll out within %s (%s): 'kubectl -n %s describe deployment %s' and its pods' events say why",
			namespace, name, timeout, state, namespace, name)
	}
	return nil
}

// rolloutState says how far d's rollout is, and whether it is done.
func rolloutState(d *appsv1.Deployment) (string, bool) {
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	s := d.Status
	state := fmt.Sprintf("%d/%d replicas up to date, %d available", s.UpdatedReplicas, want, s.AvailableReplicas)
	if s.ObservedGeneration < d.Generation {
		return "waiting for the Deployment controller to see the new spec", false
	}
	if s.Replicas > s.UpdatedReplicas {
		state += fmt.Sprintf(", %d old replicas terminating", s.Replicas-s.UpdatedReplicas)
	}
	return state, s.UpdatedReplicas == want && s.AvailableReplicas >= want && s.Replicas == s.UpdatedReplicas
}
