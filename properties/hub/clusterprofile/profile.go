package clusterprofile

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	cpv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/steps"
)

// load reads the cluster and its profile; a cluster that is gone or going
// takes its profile with it, and ends the list.
func (r *Reconciler) load(ctx context.Context, s *scope) (steps.Result, error) {
	profile := &cpv1alpha1.ClusterProfile{}
	err := r.Client.Get(ctx, types.NamespacedName{Namespace: r.Namespace, Name: s.name}, profile)
	switch {
	case apierrors.IsNotFound(err):
		profile = nil
	case err != nil:
		return steps.StopList, err
	}
	cluster := &clusterv1.ManagedCluster{}
	err = r.Client.Get(ctx, types.NamespacedName{Name: s.name}, cluster)
	if err != nil && !apierrors.IsNotFound(err) {
		return steps.StopList, err
	}
	if apierrors.IsNotFound(err) || !cluster.DeletionTimestamp.IsZero() {
		if profile == nil || profile.Labels[cpv1alpha1.LabelClusterManagerKey] != ManagerName {
			return steps.StopList, nil
		}
		ctrl.LoggerFrom(ctx).V(1).Info("Deleting the ClusterProfile of a cluster that is gone", "cluster", s.name)
		return steps.StopList, client.IgnoreNotFound(r.Client.Delete(ctx, profile))
	}
	s.cluster, s.profile = cluster, profile
	return steps.Continue, nil
}

// ensureNamespace creates the profiles' namespace when there is none. It
// is made once, not once per cluster: a thousand clusters appearing at once
// cost one create, and a profile create that finds the namespace gone makes
// the next reconcile create it again.
func (r *Reconciler) ensureNamespace(ctx context.Context, s *scope) (steps.Result, error) {
	if s.profile != nil || r.namespaceMade.Load() {
		return steps.Continue, nil
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: r.Namespace}}
	if err := r.Client.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return steps.StopList, fmt.Errorf("creating the ClusterProfiles' namespace %s: %w", r.Namespace, err)
	}
	r.namespaceMade.Store(true)
	return steps.Continue, nil
}

// Labels are the labels a cluster's profile carries.
func Labels(cluster *clusterv1.ManagedCluster) map[string]string {
	l := map[string]string{
		cpv1alpha1.LabelClusterManagerKey: ManagerName,
		clusterv1.ClusterNameLabelKey:     cluster.Name,
	}
	if set := cluster.Labels[clusterv1beta2.ClusterSetLabel]; set != "" {
		l[cpv1alpha1.LabelClusterSetKey] = set
	}
	return l
}

// ensureProfile creates the profile, or puts its labels right. A profile
// of that name another cluster manager owns is left alone.
func (r *Reconciler) ensureProfile(ctx context.Context, s *scope) (steps.Result, error) {
	labels := Labels(s.cluster)
	if s.profile == nil {
		profile := &cpv1alpha1.ClusterProfile{
			ObjectMeta: metav1.ObjectMeta{Namespace: r.Namespace, Name: s.name, Labels: labels},
			Spec:       cpv1alpha1.ClusterProfileSpec{DisplayName: s.name, ClusterManager: cpv1alpha1.ClusterManager{Name: ManagerName}},
		}
		ctrl.LoggerFrom(ctx).V(1).Info("Creating a ClusterProfile", "cluster", s.name, "namespace", r.Namespace)
		if err := r.Client.Create(ctx, profile); apierrors.IsAlreadyExists(err) {
			// The cache has not seen it yet: look again once it has.
			return steps.Result{Stop: true, RequeueAfter: time.Second}, nil
		} else if err != nil {
			if apierrors.IsNotFound(err) {
				r.namespaceMade.Store(false) // someone deleted it
			}
			return steps.StopList, fmt.Errorf("creating ClusterProfile %s/%s: %w", r.Namespace, s.name, err)
		}
		s.profile = profile
		return steps.Continue, nil
	}
	if s.profile.Spec.ClusterManager.Name != ManagerName {
		ctrl.LoggerFrom(ctx).V(1).Info("A ClusterProfile of another cluster manager has the cluster's name; leaving it", "cluster", s.name, "manager", s.profile.Spec.ClusterManager.Name)
		return steps.StopList, nil
	}
	original := s.profile.DeepCopy()
	changed := false
	for k, v := range labels {
		if s.profile.Labels[k] != v {
			if s.profile.Labels == nil {
				s.profile.Labels = map[string]string{}
			}
			s.profile.Labels[k], changed = v, true
		}
	}
	if _, ok := labels[cpv1alpha1.LabelClusterSetKey]; !ok {
		if _, had := s.profile.Labels[cpv1alpha1.LabelClusterSetKey]; had {
			delete(s.profile.Labels, cpv1alpha1.LabelClusterSetKey)
			changed = true
		}
	}
	if !changed {
		return steps.Continue, nil
	}
	if err := r.Client.Patch(ctx, s.profile, client.MergeFrom(original)); err != nil {
		return steps.StopList, fmt.Errorf("labelling ClusterProfile %s/%s: %w", r.Namespace, s.name, err)
	}
	return steps.Continue, nil
}
