package settings

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"open-cluster-management.io/addon-framework/pkg/utils"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/addons/configmapchannel"
	"github.com/corral-dev/corral/internal/steps"
)

// desiredConfig is the AddOnDeploymentConfig the addon manager resolved
// for mca, if any.
func desiredConfig(mca *addonv1alpha1.ManagedClusterAddOn) (addonv1alpha1.ConfigReferent, bool) {
	for _, ref := range mca.Status.ConfigReferences {
		if ref.Group != utils.AddOnDeploymentConfigGVR.Group || ref.Resource != utils.AddOnDeploymentConfigGVR.Resource {
			continue
		}
		if ref.DesiredConfig != nil && ref.DesiredConfig.Name != "" {
			return ref.DesiredConfig.ConfigReferent, true
		}
		if ref.Name != "" {
			return ref.ConfigReferent, true
		}
	}
	return addonv1alpha1.ConfigReferent{}, false
}

// load reads the addon; one being deleted is left alone, and once it is
// gone (the addon disabled on the cluster) so are its settings.
func (r *Reconciler[T]) load(ctx context.Context, s *scope[T]) (steps.Result, error) {
	mca := &addonv1alpha1.ManagedClusterAddOn{}
	err := r.Client.Get(ctx, s.key, mca)
	if apierrors.IsNotFound(err) {
		return steps.StopList, r.forget(ctx, s)
	}
	if err != nil {
		return steps.StopList, err
	}
	if !mca.DeletionTimestamp.IsZero() {
		return steps.StopList, nil
	}
	s.addon = mca
	return steps.Continue, nil
}

// forget deletes the settings of an addon no longer enabled on the
// cluster, so that disabling it leaves nothing of it behind.
func (r *Reconciler[T]) forget(ctx context.Context, s *scope[T]) error {
	err := r.Kube.CoreV1().ConfigMaps(s.key.Namespace).Delete(ctx, r.Addon.ConfigName, metav1.DeleteOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("deleting the settings of the disabled %s addon: %w", r.Addon.Name, err)
	}
	ctrl.LoggerFrom(ctx).V(1).Info("Deleted the settings of a disabled addon", "configMap", klog.KRef(s.key.Namespace, r.Addon.ConfigName))
	return nil
}

// resolve parses the addon's config into s.settings, or says in s.reason
// and s.message why it cannot.
func (r *Reconciler[T]) resolve(ctx context.Context, s *scope[T]) (steps.Result, error) {
	ref, ok := desiredConfig(s.addon)
	if !ok {
		s.settings = r.Addon.Defaults()
		return steps.Continue, nil
	}
	adc := &addonv1alpha1.AddOnDeploymentConfig{}
	err := r.Client.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, adc)
	if err != nil {
		if client.IgnoreNotFound(err) != nil {
			return steps.StopList, err
		}
		s.reason = ReasonConfigNotFound
		s.message = fmt.Sprintf("AddOnDeploymentConfig %s/%s does not exist: create it or remove it from the addon's configs; keeping the last valid settings", ref.Namespace, ref.Name)
		return steps.Continue, nil
	}
	settings, err := r.Addon.Parse(adc.Spec.CustomizedVariables)
	if err != nil {
		s.reason = ReasonConfigInvalid
		s.message = fmt.Sprintf("AddOnDeploymentConfig %s/%s is not valid, keeping the last valid settings: %v", ref.Namespace, ref.Name, err)
		ctrl.LoggerFrom(ctx).V(1).Info("Rejecting an addon's config", "addon", s.key, "config", ref, "err", err)
		return steps.Continue, nil
	}
	s.settings = settings
	return steps.Continue, nil
}

// writeSettings writes valid settings for the agent and the hub half.
func (r *Reconciler[T]) writeSettings(ctx context.Context, s *scope[T]) (steps.Result, error) {
	if s.reason != "" {
		return steps.Continue, nil
	}
	if err := configmapchannel.Write(ctx, r.Kube, s.key.Namespace, r.Addon.ConfigName, r.Addon.Name, s.settings); err != nil {
		return steps.StopList, err
	}
	return steps.Continue, nil
}
