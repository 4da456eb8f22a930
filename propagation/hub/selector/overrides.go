package selector

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/override"
)

// readOverrides snapshots the override policies that change the selected
// objects (override.Snapshot), for the revision: a Propagation's
// namespace's OverridePolicies and every ClusterOverridePolicy. A policy
// that cannot be read (a label selector that does not parse), or one
// that changes them and is wrong on every cluster (override.Validate:
// one stored before the webhook refused it) is Selected False,
// OverrideInvalid, naming it: delivering without it could
// send a cluster what the policy exists to change, so the revisions are
// left as they are.
func (r *Reconciler) readOverrides(ctx context.Context, s *scope) (steps.Result, error) {
	if s.blocked() || len(s.objects) == 0 {
		return steps.Continue, nil
	}
	var policies v1alpha1.OverridePolicyList
	if err := r.Client.List(ctx, &policies, client.InNamespace(s.namespace)); err != nil {
		return steps.StopList, err
	}
	var clusterPolicies v1alpha1.ClusterOverridePolicyList
	if err := r.Client.List(ctx, &clusterPolicies); err != nil {
		return steps.StopList, err
	}
	snap, err := override.Snapshot(s.objects, policies.Items, clusterPolicies.Items)
	for _, p := range snap {
		if err != nil {
			break
		}
		err = override.Validate(p.ClusterScoped, p.Name, nil, v1alpha1.Overrides{Priority: p.Priority, Rules: p.Rules})
	}
	if err != nil {
		s.block(v1alpha1.ReasonOverrideInvalid, fmt.Sprintf("%v; the revisions are left as they are", err))
		return steps.Continue, nil
	}
	s.overrides = snap
	return steps.Continue, nil
}

// propagationsOf are the propagations an override policy may change:
// every ClusterPropagation (one may deliver a namespace's objects), and
// the Propagations of an OverridePolicy's namespace, or of every
// namespace for a ClusterOverridePolicy.
func (r *Reconciler) propagationsOf(ctx context.Context, obj client.Object) []reconcile.Request {
	var out []reconcile.Request
	var props v1alpha1.PropagationList
	if err := r.Client.List(ctx, &props, client.InNamespace(obj.GetNamespace())); err != nil {
		return nil
	}
	for _, p := range props.Items {
		out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: p.Namespace, Name: p.Name}})
	}
	var cprops v1alpha1.ClusterPropagationList
	if err := r.Client.List(ctx, &cprops); err != nil {
		return out
	}
	for _, p := range cprops.Items {
		out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Name: p.Name}})
	}
	return out
}
