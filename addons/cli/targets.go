package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/validation"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/registration/common"
)

// validateAddonNames says which of names is not an addon's name (a DNS-1123
// label).
func validateAddonNames(names []string) error {
	if len(names) == 0 {
		return errors.New("name at least one addon")
	}
	for _, n := range names {
		if errs := validation.IsDNS1123Label(n); len(errs) > 0 {
			return fmt.Errorf("addon name %q is not valid: %s", n, errs[0])
		}
	}
	return nil
}

// target is which clusters a verb works on: named ones, a set's, or
// (disable) every cluster the addon is enabled on.
type target struct {
	Clusters    []string
	ClusterSet  string
	AllClusters bool
}

// validateTarget checks that exactly one way of naming clusters is given.
func (t *target) validateTarget(allowAll bool) error {
	given := 0
	for _, set := range []bool{len(t.Clusters) > 0, t.ClusterSet != "", t.AllClusters} {
		if set {
			given++
		}
	}
	want := "--clusters or --clusterset"
	if allowAll {
		want = "--clusters, --clusterset or --all-clusters"
	}
	if given != 1 {
		return fmt.Errorf("give exactly one of %s", want)
	}
	if len(t.Clusters) > 0 {
		var err error
		t.Clusters, err = common.ClusterNames(t.Clusters)
		return err
	}
	if t.ClusterSet != "" {
		return common.ValidateClusterSetName(t.ClusterSet)
	}
	return nil
}

// resolve returns the clusters t names, sorted: every named cluster must
// exist; a set must exist and have members. all is not resolved here.
func (t target) resolve(ctx context.Context, c client.Reader) ([]clusterv1.ManagedCluster, error) {
	if t.ClusterSet != "" {
		set := &clusterv1beta2.ManagedClusterSet{}
		if err := c.Get(ctx, client.ObjectKey{Name: t.ClusterSet}, set); err != nil {
			if apierrors.IsNotFound(err) {
				return nil, fmt.Errorf("no cluster set %q on the hub: see corral clusterset get", t.ClusterSet)
			}
			return nil, fmt.Errorf("reading cluster set %s: %w", t.ClusterSet, err)
		}
		members, err := common.Members(ctx, c, set)
		if err != nil {
			return nil, fmt.Errorf("listing the clusters of set %s: %w", t.ClusterSet, err)
		}
		if len(members) == 0 {
			return nil, fmt.Errorf("cluster set %s has no clusters", t.ClusterSet)
		}
		slices.SortFunc(members, func(a, b clusterv1.ManagedCluster) int { return strings.Compare(a.Name, b.Name) })
		return members, nil
	}
	var out []clusterv1.ManagedCluster
	var missing []string
	for _, name := range t.Clusters {
		mc := &clusterv1.ManagedCluster{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, mc); err != nil {
			if apierrors.IsNotFound(err) {
				missing = append(missing, name)
				continue
			}
			return nil, fmt.Errorf("reading cluster %s: %w", name, err)
		}
		out = append(out, *mc)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("no such cluster on the hub: %s (see corral get clusters)", strings.Join(missing, ", "))
	}
	return out, nil
}

// checkAccepted says, in one line, which clusters cannot have addons yet:
// not accepted, or accepted but without their namespace yet.
func checkAccepted(clusters []clusterv1.ManagedCluster) error {
	var notAccepted, settling []string
	for _, mc := range clusters {
		switch {
		case !mc.Spec.HubAcceptsClient:
			notAccepted = append(notAccepted, mc.Name)
		case !meta.IsStatusConditionTrue(mc.Status.Conditions, clusterv1.ManagedClusterConditionHubAccepted):
			settling = append(settling, mc.Name)
		}
	}
	switch {
	case len(notAccepted) > 0:
		return fmt.Errorf("cluster %s is not accepted: accept it first (corral accept %s); nothing was enabled",
			strings.Join(notAccepted, ", "), strings.Join(notAccepted, " "))
	case len(settling) > 0:
		return fmt.Errorf("cluster %s is accepted but the hub has not finished setting it up: try again in a moment; nothing was enabled",
			strings.Join(settling, ", "))
	}
	return nil
}

// errUnknownAddon is returned (wrapped) for an addon the hub has no
// ClusterManagementAddOn for.
var errUnknownAddon = errors.New("unknown addon")

// checkAddonsKnown says, in one line, which addons the hub has no
// ClusterManagementAddOn for.
func checkAddonsKnown(ctx context.Context, c client.Reader, addons []string) error {
	var missing []string
	for _, name := range addons {
		cma := &addonv1alpha1.ClusterManagementAddOn{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, cma); err != nil {
			if apierrors.IsNotFound(err) {
				missing = append(missing, name)
				continue
			}
			return fmt.Errorf("reading addon %s: %w", name, err)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: the hub has no addon %s (no ClusterManagementAddOn; see corral addon list); nothing was enabled",
			errUnknownAddon, strings.Join(missing, ", "))
	}
	return nil
}

// ParseConfig reads a --config value, group/resource/[namespace/]name; the
// core group is empty (/configmaps/ns/name).
func ParseConfig(s string) (addonv1alpha1.AddOnConfig, error) {
	parts := strings.Split(s, "/")
	var ref addonv1alpha1.AddOnConfig
	switch len(parts) {
	case 3:
		ref.Group, ref.Resource, ref.Name = parts[0], parts[1], parts[2]
	case 4:
		ref.Group, ref.Resource, ref.Namespace, ref.Name = parts[0], parts[1], parts[2], parts[3]
	default:
		return ref, fmt.Errorf("--config %q is not group/resource/[namespace/]name, e.g. addon.open-cluster-management.io/addondeploymentconfigs/ns/name", s)
	}
	if ref.Resource == "" || ref.Name == "" {
		return ref, fmt.Errorf("--config %q needs a resource and a name: group/resource/[namespace/]name", s)
	}
	return ref, nil
}
