package clusterhealth

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/corral-dev/corral/addons/configmapchannel"
	"github.com/corral-dev/corral/health/api"
	"github.com/corral-dev/corral/internal/steps"
)

// load reads the cluster, whether the addon is enabled on it, its
// settings and its report.
func (r *Reconciler) load(ctx context.Context, s *scope) (steps.Result, error) {
	cluster, addon, err := configmapchannel.ClusterAndAddon(ctx, r.Client, s.name, api.AddonName)
	if err != nil || cluster == nil {
		return steps.StopList, err
	}
	s.cluster = cluster
	s.enabled = addon != nil && addon.DeletionTimestamp.IsZero()
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
