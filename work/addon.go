package work

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/deploy/charts/corral-hub/crds"
	"github.com/corral-dev/corral/work/agent"
	"github.com/corral-dev/corral/work/hub"
	"github.com/corral-dev/corral/work/hub/validation"
)

// AddonName is the work addon's name: its ClusterManagementAddOn's and
// every ManagedClusterAddOn's.
const AddonName = "work"

// AppliedManifestWorkCRD names the CRD the work agent needs on the managed
// cluster.
const AppliedManifestWorkCRD = "appliedmanifestworks.work.open-cluster-management.io"

// Addon is the work addon as the hub's addon manager, the agent's addon
// host and `corral addon` know it. Its agent half applies the ManifestWorks
// of the cluster namespace with the addon's own hub identity, which may
// only read and update them there. Its hub half fans
// ManifestWorkReplicaSets out to the clusters their placements select.
func Addon() addons.Addon {
	return addons.Addon{
		Name:        AddonName,
		Description: "applies the ManifestWorks of a cluster's namespace to the cluster",
		HubRules: []rbacv1.PolicyRule{
			{APIGroups: []string{workv1.GroupName}, Resources: []string{"manifestworks"}, Verbs: []string{"get", "list", "watch", "update", "patch"}},
			{APIGroups: []string{workv1.GroupName}, Resources: []string{"manifestworks/status"}, Verbs: []string{"update", "patch"}},
			{APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "patch", "update"}},
		},
		SetupHub: func(mgr ctrl.Manager, env addons.HubEnv) error {
			return hub.SetupWithManager(mgr, hub.Options{Clock: env.Clock})
		},
		HubWebhooks: validation.Webhooks,
		RunAgent:    runAgent,
	}
}

// runAgent installs the AppliedManifestWork CRD on the managed cluster,
// then runs the work agent and, while it runs, renews the addon's
// lease in its install namespace: the hub's Available condition for it.
func runAgent(ctx context.Context, env addons.AgentEnv) error {
	// The agent records what it applied in AppliedManifestWorks on the
	// managed cluster: their CRD is the addon's to install there.
	if err := crds.Install(ctx, env.Managed, AppliedManifestWorkCRD); err != nil {
		return fmt.Errorf("installing the %s CRD on the managed cluster: %w", AppliedManifestWorkCRD, err)
	}
	return env.RunWithLease(ctx, AddonName, func(ctx context.Context) error {
		return agent.Run(ctx, agent.Options{ClusterName: env.ClusterName, Hub: env.Hub, Managed: env.Managed})
	})
}
