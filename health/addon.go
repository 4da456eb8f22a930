package health

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/client-go/kubernetes"
	"open-cluster-management.io/addon-framework/pkg/lease"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/health/agent"
	"github.com/corral-dev/corral/health/api"
	"github.com/corral-dev/corral/health/hub"
)

// Addon is the health addon.
func Addon() addons.Addon {
	return addons.Addon{
		Name:        api.AddonName,
		Description: "probes each cluster's API server, nodes and workloads; marks and taints unhealthy clusters",
		// The agent writes its report and watches its settings (by
		// name), two ConfigMaps in its cluster namespace; it cannot touch
		// anything else there.
		HubRules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"create"}},
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{api.ReportName}, Verbs: []string{"get", "update", "patch"}},
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{api.ConfigName}, Verbs: []string{"get", "list", "watch"}},
		},
		SetupHub:                 func(mgr ctrl.Manager, env addons.HubEnv) error { return hub.SetupWithManager(mgr, hub.Options{Clock: env.Clock}) },
		RunAgent:                 runAgent,
		ValidateDeploymentConfig: hub.Settings.Validate,
	}
}

// runAgent runs the prober and renews the addon's lease while it runs.
func runAgent(ctx context.Context, env addons.AgentEnv) error {
	kube, err := kubernetes.NewForConfig(env.Managed)
	if err != nil {
		return fmt.Errorf("building the managed cluster's client: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go lease.NewLeaseUpdater(kube, api.AddonName, env.InstallNamespace).Start(ctx)
	return agent.Run(ctx, agent.Options{ClusterName: env.ClusterName, Hub: env.Hub, Managed: env.Managed})
}
