package clusterhealth

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
	"github.com/corral-dev/corral/health/api"
	"github.com/corral-dev/corral/internal/steps"
)

// load reads the cluster, whether the addon is enabled on it, its
// settings and its report.
func (r *Reconciler) load(ctx context.Context, s *scope) (steps.Result, error) {
	cluster := &clusterv1.ManagedCluster{}
	if err := r.Client.Get(ctx, types.NamespacedName{Name: s.name}, cluster); err != nil {
		return steps.StopList, client.IgnoreNotFound(err)
	}
	if !cluster.DeletionTimestamp.IsZero() {
		return steps.StopList, nil
	}
	s.cluster = cluster
	addon := &addonv1alpha1.ManagedClusterAddOn{}
	err := r.Client.Get(ctx, types.NamespacedName{Namespace: s.name, Name: api.AddonName}, addon)
	if client.IgnoreNotFound(err) != nil {
		return steps.StopList, err
	}
	s.enabled = err == nil && addon.DeletionTimestamp.IsZero()
	if !s.enabled {
		return steps.Continue, nil
	}
	s.settings = api.DefaultSettings()
	if err := r.read(ctx, s.name, api.ConfigName, &s.settings); err != nil && !apierrors.IsNotFound(err) {
		ctrl.LoggerFrom(ctx).Error(err, "Judging health by the default settings", "cluster", s.name)
		s.settings = api.DefaultSettings()
	}
	rep := &api.Report{}
	switch err := r.read(ctx, s.name, api.ReportName, rep); {
	case apierrors.IsNotFound(err):
	case err != nil:
		ctrl.LoggerFrom(ctx).Error(err, "Ignoring an unreadable health report", "cluster", s.name)
	default:
		s.report = rep
	}
	return steps.Continue, nil
}

// read decodes the addon's ConfigMap namespace/name.
func (r *Reconciler) read(ctx context.Context, namespace, name string, v any) error {
	cm := &corev1.ConfigMap{}
	if err := r.Reports.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, cm); err != nil {
		return err
	}
	return configmapchannel.Decode(cm, v)
}
