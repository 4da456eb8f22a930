package agent

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/properties/api"
)

// syncClaims makes the agent's own ClusterClaims on the managed cluster
// what want says — creating, updating, deleting only claims labelled
// api.LabelClaimOwner — and returns the user's claims (the rest).
func syncClaims(ctx context.Context, c client.Client, want []api.Claim) (user []api.Claim, err error) {
	list := &clusterv1alpha1.ClusterClaimList{}
	if err := c.List(ctx, list); err != nil {
		return nil, fmt.Errorf("listing ClusterClaims: %w", err)
	}
	wanted := make(map[string]string, len(want))
	for _, cl := range want {
		wanted[cl.Name] = cl.Value
	}
	log := ctrl.LoggerFrom(ctx)
	for i := range list.Items {
		have := &list.Items[i]
		if have.Labels[api.LabelClaimOwner] != "true" {
			user = append(user, api.Claim{Name: have.Name, Value: have.Spec.Value})
			continue
		}
		value, ok := wanted[have.Name]
		delete(wanted, have.Name)
		switch {
		case !ok:
			log.V(1).Info("Deleting a ClusterClaim no longer observed", "claim", have.Name)
			if err := c.Delete(ctx, have); client.IgnoreNotFound(err) != nil {
				return nil, fmt.Errorf("deleting ClusterClaim %s: %w", have.Name, err)
			}
		case value != have.Spec.Value:
			log.V(4).Info("Updating a ClusterClaim", "claim", have.Name, "value", value)
			have.Spec.Value = value
			if err := c.Update(ctx, have); err != nil {
				return nil, fmt.Errorf("updating ClusterClaim %s: %w", have.Name, err)
			}
		}
	}
	for _, cl := range want {
		if _, ok := wanted[cl.Name]; !ok {
			continue
		}
		claim := &clusterv1alpha1.ClusterClaim{
			ObjectMeta: metav1.ObjectMeta{Name: cl.Name, Labels: map[string]string{api.LabelClaimOwner: "true"}},
			Spec:       clusterv1alpha1.ClusterClaimSpec{Value: cl.Value},
		}
		log.V(4).Info("Creating a ClusterClaim", "claim", cl.Name, "value", cl.Value)
		if err := c.Create(ctx, claim); err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("creating ClusterClaim %s: %w", cl.Name, err)
		}
	}
	return user, nil
}
