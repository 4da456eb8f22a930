package rollout

import (
	"context"

	"k8s.io/apimachinery/pkg/labels"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	placementsdk "open-cluster-management.io/sdk-go/pkg/apis/cluster/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Decisions reads PlacementDecisions for sdk-go's decision tracker, from
// c (a cache). A decision without a decision group index (written by hand,
// or by an older scheduler) is in group 0.
func Decisions(ctx context.Context, c client.Reader) placementsdk.PlacementDecisionGetter {
	return decisionLister{ctx: ctx, c: c}
}

// decisionLister lists decisions with their group index.
type decisionLister struct {
	ctx context.Context
	c   client.Reader
}

func (d decisionLister) List(selector labels.Selector, namespace string) ([]*clusterv1beta1.PlacementDecision, error) {
	list := &clusterv1beta1.PlacementDecisionList{}
	if err := d.c.List(d.ctx, list, client.InNamespace(namespace), client.MatchingLabelsSelector{Selector: selector}); err != nil {
		return nil, err
	}
	out := make([]*clusterv1beta1.PlacementDecision, 0, len(list.Items))
	for i := range list.Items {
		pd := &list.Items[i]
		if _, ok := pd.Labels[clusterv1beta1.DecisionGroupIndexLabel]; !ok {
			pd.Labels = labels.Merge(pd.Labels, labels.Set{clusterv1beta1.DecisionGroupIndexLabel: "0"})
		}
		out = append(out, pd)
	}
	return out, nil
}
