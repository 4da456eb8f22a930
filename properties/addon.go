package properties

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/addons/configmapchannel"
	"github.com/corral-dev/corral/deploy/charts/corral-hub/crds"
	"github.com/corral-dev/corral/properties/agent"
	"github.com/corral-dev/corral/properties/api"
	"github.com/corral-dev/corral/properties/hub"
	"github.com/corral-dev/corral/properties/hub/clusterprofile"
)

// ClusterClaimCRD names the CRD the agent writes claims into on the
// managed cluster.
const ClusterClaimCRD = "clusterclaims.cluster.open-cluster-management.io"

// Addon is the properties addon with its defaults.
func Addon() addons.Addon { return AddonWith(hub.Options{}) }

// AddonWith is the properties addon whose hub half runs with opts (the
// ClusterProfiles' namespace, which `corral hub
// --cluster-profile-namespace` sets).
func AddonWith(opts hub.Options) addons.Addon {
	if opts.ProfileNamespace == "" {
		opts.ProfileNamespace = clusterprofile.DefaultNamespace
	}
	return addons.Addon{
		Name:        api.AddonName,
		Description: "reports each cluster's version, capacity, platform and region as ClusterClaims; a ClusterProfile per cluster",
		// The agent reads and writes its report and watches its settings
		// (by name), two ConfigMaps in its cluster namespace; it cannot
		// touch anything else there.
		HubRules: configmapchannel.AgentRules(api.ReportName, api.ConfigName),
		HubFlags: func(fs *pflag.FlagSet) {
			fs.StringVar(&opts.ProfileNamespace, "cluster-profile-namespace", opts.ProfileNamespace,
				"namespace of the properties addon's ClusterProfiles, one per cluster (created when missing)")
		},
		SetupHub: func(mgr ctrl.Manager, env addons.HubEnv) error {
			o := opts // as the flags left it
			if env.Clock != nil {
				o.Clock = env.Clock
			}
			return hub.SetupWithManager(mgr, o)
		},
		RunAgent:                 runAgent,
		ValidateDeploymentConfig: hub.Settings.Validate,
	}
}

// runAgent installs the ClusterClaim CRD on the managed cluster, then
// runs the agent and renews the addon's lease while it runs.
func runAgent(ctx context.Context, env addons.AgentEnv) error {
	if err := crds.Install(ctx, env.Managed, ClusterClaimCRD); err != nil {
		return fmt.Errorf("installing the %s CRD on the managed cluster: %w", ClusterClaimCRD, err)
	}
	return env.RunWithLease(ctx, api.AddonName, func(ctx context.Context) error {
		return agent.Run(ctx, agent.Options{ClusterName: env.ClusterName, Hub: env.Hub, Managed: env.Managed})
	})
}
