package fleet

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	kwait "k8s.io/apimachinery/pkg/util/wait"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/addons"
	addoncli "github.com/corral-dev/corral/addons/cli"
)

// addonManagerTimeout bounds the wait for the hub's addon manager to
// create the ClusterManagementAddOns of the fleet's addons.
const addonManagerTimeout = 2 * time.Minute

// SelectAddons picks the built-in addons `dev up --addons` names out of
// known; no names picks them all. It says in one line when a name is
// unknown.
func SelectAddons(known []addons.Addon, names []string) ([]addons.Addon, error) {
	picked, err := addons.Select(known, names)
	if err != nil {
		return nil, fmt.Errorf("--addons: %w", err)
	}
	return picked, nil
}

// enableAddons enables the fleet's addons that have an agent half on every
// managed cluster, as `corral addon enable` would, once the hub knows
// them: the hub's addon manager creates their ClusterManagementAddOns as
// it starts, so a missing one is waited for, up to wait, before enable
// gives up.
func enableAddons(ctx context.Context, hub client.Client, clusters []string, selected []addons.Addon, wait time.Duration, progress io.Writer) error {
	// A hub-only addon serves every cluster from the hub: nothing to
	// enable, and no agent lease would ever make it Available.
	selected = addons.WithAgents(selected)
	if len(selected) == 0 || len(clusters) == 0 {
		return nil
	}
	names := addons.Names(selected)
	if err := addoncli.WaitForAddons(ctx, hub, names, wait); err != nil {
		return fmt.Errorf("enabling the fleet's addons: %w", err)
	}
	var managed []clusterv1.ManagedCluster
	for _, name := range clusters {
		mc := &clusterv1.ManagedCluster{}
		if err := hub.Get(ctx, client.ObjectKey{Name: name}, mc); err != nil {
			return fmt.Errorf("enabling the fleet's addons on %s: %w", name, err)
		}
		managed = append(managed, *mc)
	}
	changes, err := addoncli.Enable(ctx, hub, names, managed, addoncli.EnableSpec{})
	for _, ch := range changes {
		fmt.Fprintf(progress, "%s: addon %s %s\n", ch.Cluster, ch.Addon, ch.Action)
	}
	if err != nil {
		return fmt.Errorf("enabling the fleet's addons: %w", err)
	}
	return nil
}

// waitAddonsAvailable waits, up to wait, until every addon of selected
// with an agent half is Available on every one of clusters, saying how
// many are as that changes: the fleet is up once its addons serve, not
// only once they are enabled (the hub marks an addon Available from its
// agent's lease, a little after the agent runs).
func waitAddonsAvailable(ctx context.Context, hub client.Client, clusters []string, selected []addons.Addon, wait time.Duration, progress io.Writer) error {
	names := addons.Names(addons.WithAgents(selected))
	want := len(names) * len(clusters)
	if want == 0 {
		return nil
	}
	var missing []string
	last := -1
	err := kwait.PollUntilContextTimeout(ctx, time.Second, wait, true, func(ctx context.Context) (bool, error) {
		missing = missing[:0]
		for _, cluster := range clusters {
			for _, name := range names {
				a := &addonv1alpha1.ManagedClusterAddOn{}
				err := hub.Get(ctx, client.ObjectKey{Namespace: cluster, Name: name}, a)
				if err != nil || !meta.IsStatusConditionTrue(a.Status.Conditions, addonv1alpha1.ManagedClusterAddOnConditionAvailable) {
					missing = append(missing, cluster+"/"+name)
				}
			}
		}
		if n := want - len(missing); n != last {
			fmt.Fprintf(progress, "addons: %d of %d available\n", n, want)
			last = n
		}
		return len(missing) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("addons not Available after %s: %s (see 'corral addon status')", wait, strings.Join(missing, ", "))
	}
	return nil
}
