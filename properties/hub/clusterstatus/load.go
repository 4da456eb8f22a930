package clusterstatus

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
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
	cluster := &clusterv1.ManagedCluster{}
	if err := r.Client.Get(ctx, types.NamespacedName{Name: s.name}, cluster); err != nil {
		return steps.StopList, client.IgnoreNotFound(err)
	}
	if !cluster.DeletionTimestamp.IsZero() {
		return steps.StopList, nil
	}
	s.cluster, s.original = cluster, cluster.DeepCopy()
	addon := &addonv1alpha1.ManagedClusterAddOn{}
	err := r.Client.Get(ctx, types.NamespacedName{Namespace: s.name, Name: api.AddonName}, addon)
	switch {
	case apierrors.IsNotFound(err):
		addon = nil
	case err != nil:
		return steps.StopList, err
	case !addon.DeletionTimestamp.IsZero():
		return steps.StopList, nil // being disabled: forget once it is gone
	}
	s.addon = addon
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
