package clusterstatus

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/addons/configmapchannel"
	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/properties/api"
)

// load reads the cluster, its properties addon and its report; it stops
// the list when the cluster or the report is missing, the cluster is
// going or the addon is being disabled. A report left with no addon is
// the addon's leftover (s.leftover), for forget.
func (r *Reconciler) load(ctx context.Context, s *scope) (steps.Result, error) {
	cluster, addon, err := configmapchannel.ClusterAndAddon(ctx, r.Client, s.name, api.AddonName)
	if err != nil || cluster == nil {
		return steps.StopList, err
	}
	if addon != nil && !addon.DeletionTimestamp.IsZero() {
		return steps.StopList, nil // being disabled: forget once it is gone
	}
	s.cluster, s.original, s.addon = cluster, cluster.DeepCopy(), addon
	cm := &corev1.ConfigMap{}
	if err := r.Reports.Get(ctx, types.NamespacedName{Namespace: s.name, Name: api.ReportName}, cm); err != nil {
		return steps.StopList, client.IgnoreNotFound(err)
	}
	if addon == nil {
		s.leftover = cm
		return steps.Continue, nil
	}
	rep := &api.Report{}
	if err := configmapchannel.Decode(cm, rep); err != nil {
		// The agent's to fix: nothing here changes until it writes again.
		ctrl.LoggerFrom(ctx).Error(err, "Ignoring an unreadable properties report", "cluster", s.name)
		return steps.StopList, nil
	}
	s.report = rep
	return steps.Continue, nil
}
