package health

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/addons/configmapchannel"
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
		HubRules: configmapchannel.AgentRules(api.ReportName, api.ConfigName),
		SetupHub: func(mgr ctrl.Manager, env addons.HubEnv) error {
			return hub.SetupWithManager(mgr, hub.Options{Clock: env.Clock})
		},
		RunAgent:                 runAgent,
		ValidateDeploymentConfig: hub.Settings.Validate,
	}
}

// runAgent runs the prober and renews the addon's lease while it runs.
func runAgent(ctx context.Context, env addons.AgentEnv) error {
	return env.RunWithLease(ctx, api.AddonName, func(ctx context.Context) error {
		return agent.Run(ctx, agent.Options{ClusterName: env.ClusterName, Hub: env.Hub, Managed: env.Managed})
	})
}
