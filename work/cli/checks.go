package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/work"
)

// checkNamespaces refuses a namespaced object without a namespace: the
// agent applies it as it is, and a ManifestWork does not default it.
// Whether a kind is namespaced is asked of the hub's RESTMapper; a kind the
// hub does not know (a CRD only the managed clusters have) passes.
func (o *CreateOptions) checkNamespaces(ctx context.Context) error {
	mapper := o.Hub.Client.RESTMapper()
	for _, m := range o.manifests {
		u := object(m)
		if u.GetNamespace() != "" {
			continue
		}
		gvk := u.GroupVersionKind()
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			ctrl.LoggerFrom(ctx).V(4).Info("Kind unknown to the hub; its scope is left to the cluster", "kind", gvk, "err", err)
			continue
		}
		if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
			return fmt.Errorf("%s has no namespace: add metadata.namespace (a ManifestWork does not default it); %s", objectName(u), o.nothing())
		}
	}
	return nil
}

// workAddons reads the work addon of each cluster: missing ones are not
// in the map.
func workAddons(ctx context.Context, c client.Reader, clusters []string) (map[string]*addonv1alpha1.ManagedClusterAddOn, error) {
	addons := map[string]*addonv1alpha1.ManagedClusterAddOn{}
	for _, name := range clusters {
		a := &addonv1alpha1.ManagedClusterAddOn{}
		err := c.Get(ctx, client.ObjectKey{Namespace: name, Name: work.AddonName}, a)
		switch {
		case err == nil && a.DeletionTimestamp.IsZero():
			addons[name] = a
		case err != nil && !apierrors.IsNotFound(err):
			return nil, fmt.Errorf("reading the work addon of cluster %s: %w", name, err)
		}
	}
	return addons, nil
}

// checkWorkAddons refuses clusters whose work addon is off, and warns of
// those whose addon is not Available yet.
func (o *CreateOptions) checkWorkAddons(ctx context.Context) error {
	addons, err := workAddons(ctx, o.Hub.Client, o.Clusters)
	if err != nil {
		return err
	}
	var off []string
	for _, c := range o.Clusters {
		if _, ok := addons[c]; !ok {
			off = append(off, c)
		}
	}
	if len(off) > 0 {
		return fmt.Errorf("the work addon is not enabled on cluster %s: no agent would apply the work there; enable it first (corral addon enable %s --clusters %s); %s",
			strings.Join(off, ", "), work.AddonName, strings.Join(off, ","), o.nothing())
	}
	o.warnNotAvailable(o.Clusters, addons)
	return nil
}

// warnNotAvailable warns of the clusters whose work addon is not
// Available yet.
func (o *CreateOptions) warnNotAvailable(clusters []string, addons map[string]*addonv1alpha1.ManagedClusterAddOn) {
	var waiting []string
	for _, c := range clusters {
		if a, ok := addons[c]; ok && !meta.IsStatusConditionTrue(a.Status.Conditions, addonv1alpha1.ManagedClusterAddOnConditionAvailable) {
			waiting = append(waiting, c)
		}
	}
	if len(waiting) > 0 {
		fmt.Fprintf(o.ErrOut, "warning: the work addon on cluster %s is not Available yet: its work waits for the agent (corral addon status %s)\n",
			strings.Join(waiting, ", "), work.AddonName)
	}
}

// decidedClusters are the clusters the placement's decisions select now.
func decidedClusters(ctx context.Context, c client.Reader, namespace, placement string) ([]string, error) {
	list := &clusterv1beta1.PlacementDecisionList{}
	sel := labels.SelectorFromSet(labels.Set{clusterv1beta1.PlacementLabel: placement})
	if err := c.List(ctx, list, client.InNamespace(namespace), client.MatchingLabelsSelector{Selector: sel}); err != nil {
		return nil, fmt.Errorf("listing the decisions of placement %s/%s: %w", namespace, placement, err)
	}
	clusters := sets.New[string]()
	for _, d := range list.Items {
		for _, cd := range d.Status.Decisions {
			clusters.Insert(cd.ClusterName)
		}
	}
	return sets.List(clusters), nil
}

// warnPlacement warns when the placement selects no cluster yet, or
// clusters whose work addon is off or not Available: the set is written
// all the same, as the placement may change.
func (o *CreateOptions) warnPlacement(ctx context.Context) error {
	clusters, err := decidedClusters(ctx, o.Hub.Client, o.Namespace, o.Placement)
	if apierrors.IsForbidden(err) {
		return nil // a team's user may not read decisions: no warning to give
	}
	if err != nil {
		return err
	}
	if len(clusters) == 0 {
		fmt.Fprintf(o.ErrOut, "warning: placement %s selects no cluster yet: the works are made when it does (corral placement explain %s/%s)\n",
			o.Placement, o.Namespace, o.Placement)
		return nil
	}
	addons, err := workAddons(ctx, o.Hub.Client, clusters)
	if apierrors.IsForbidden(err) {
		return nil
	}
	if err != nil {
		return err
	}
	off := slices.DeleteFunc(slices.Clone(clusters), func(c string) bool { _, ok := addons[c]; return ok })
	if len(off) > 0 {
		fmt.Fprintf(o.ErrOut, "warning: the work addon is not enabled on cluster %s, which placement %s selects: no agent applies the work there (corral addon enable %s --clusters %s)\n",
			strings.Join(off, ", "), o.Placement, work.AddonName, strings.Join(off, ","))
	}
	o.warnNotAvailable(clusters, addons)
	return nil
}
