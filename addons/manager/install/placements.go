package install

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/addons/manager/addonowner"
	"github.com/corral-dev/corral/internal/steps"
)

// installByPlacements creates the addon on every cluster its placements
// decide on and deletes the ones it created on clusters they no longer do.
func (r *Reconciler) installByPlacements(ctx context.Context, s *scope) (steps.Result, error) {
	if s.cma.Spec.InstallStrategy.Type != addonv1alpha1.AddonInstallStrategyPlacements {
		return steps.Continue, nil
	}
	wanted, err := r.decidedClusters(ctx, s.cma.Spec.InstallStrategy.Placements)
	if err != nil {
		return steps.StopList, err
	}
	var errs []error
	for _, cluster := range sets.List(wanted) {
		if _, ok := s.addons[cluster]; ok {
			continue
		}
		errs = append(errs, r.create(ctx, s.cma, cluster))
	}
	for cluster, mca := range s.addons {
		if wanted.Has(cluster) || mca.Annotations[InstalledByAnnotation] != InstalledByStrategy || mca.DeletionTimestamp != nil {
			continue
		}
		// A cluster being deleted is let go by its placements; the
		// registration core deletes its addons, in an order that keeps the
		// work addon until the cluster's works are gone.
		if leaving, err := BeingDeleted(ctx, r.Client, cluster); leaving || err != nil {
			errs = append(errs, err)
			continue
		}
		err := r.Client.Delete(ctx, mca, client.Preconditions{UID: &mca.UID})
		if client.IgnoreNotFound(err) != nil {
			errs = append(errs, fmt.Errorf("deleting addon %s from cluster %s: %w", mca.Name, cluster, err))
			continue
		}
		ctrl.LoggerFrom(ctx).V(1).Info("Removed an addon from a cluster no placement decides on", "cluster", cluster)
	}
	return steps.Continue, errors.Join(errs...)
}

// BeingDeleted says whether the ManagedCluster named cluster is being
// deleted, read with c; one that does not exist is not. The strategy
// neither installs on nor removes from such a cluster.
func BeingDeleted(ctx context.Context, c client.Reader, cluster string) (bool, error) {
	mc := &clusterv1.ManagedCluster{}
	err := c.Get(ctx, types.NamespacedName{Name: cluster}, mc)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return err == nil && !mc.DeletionTimestamp.IsZero(), err
}

// create enables the addon on cluster, if the cluster exists and is not
// being deleted (a decision not yet updated).
func (r *Reconciler) create(ctx context.Context, cma *addonv1alpha1.ClusterManagementAddOn, cluster string) error {
	log := ctrl.LoggerFrom(ctx).WithValues("cluster", cluster)
	mc := &clusterv1.ManagedCluster{}
	err := r.Client.Get(ctx, types.NamespacedName{Name: cluster}, mc)
	if apierrors.IsNotFound(err) {
		log.V(1).Info("Not installing the addon: a placement decides on a cluster that does not exist")
		return nil
	}
	if err != nil {
		return err
	}
	if !mc.DeletionTimestamp.IsZero() {
		log.V(1).Info("Not installing the addon: a placement decides on a cluster being deleted")
		return nil
	}
	mca := &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{
		Name: cma.Name, Namespace: cluster,
		Annotations:     map[string]string{InstalledByAnnotation: InstalledByStrategy},
		OwnerReferences: []metav1.OwnerReference{addonowner.OwnerReference(cma)},
	}}
	if err := r.Client.Create(ctx, mca); client.IgnoreAlreadyExists(err) != nil {
		return fmt.Errorf("installing addon %s on cluster %s: %w", cma.Name, cluster, err)
	}
	log.V(1).Info("Installed the addon on a cluster a placement decides on")
	return nil
}

// decidedClusters are the clusters the existing placements decide on.
func (r *Reconciler) decidedClusters(ctx context.Context, placements []addonv1alpha1.PlacementStrategy) (sets.Set[string], error) {
	wanted := sets.New[string]()
	for _, p := range placements {
		clusters, err := PlacementClusters(ctx, r.Client, p.PlacementRef)
		if err != nil {
			return nil, err
		}
		wanted = wanted.Union(clusters)
	}
	return wanted, nil
}

// PlacementClusters are the clusters the placement decides on: none when
// it does not exist.
func PlacementClusters(ctx context.Context, c client.Reader, ref addonv1alpha1.PlacementRef) (sets.Set[string], error) {
	clusters := sets.New[string]()
	err := c.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, &clusterv1beta1.Placement{})
	if apierrors.IsNotFound(err) {
		ctrl.LoggerFrom(ctx).V(1).Info("Placement of the install strategy does not exist", "placement", ref)
		return clusters, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading placement %s/%s: %w", ref.Namespace, ref.Name, err)
	}
	decisions := &clusterv1beta1.PlacementDecisionList{}
	if err := c.List(ctx, decisions, client.InNamespace(ref.Namespace),
		client.MatchingLabels{clusterv1beta1.PlacementLabel: ref.Name}); err != nil {
		return nil, fmt.Errorf("listing the decisions of placement %s/%s: %w", ref.Namespace, ref.Name, err)
	}
	for _, d := range decisions.Items {
		for _, cd := range d.Status.Decisions {
			clusters.Insert(cd.ClusterName)
		}
	}
	return clusters, nil
}
