package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/corral-dev/corral/internal/kubeflags"
	"github.com/corral-dev/corral/registration/hub"
)

// hubOptions are the options of `corral hub`, the hub's controllers.
type hubOptions struct {
	kube          *kubeflags.Flags
	leaderElect   bool
	probeAddr     string
	metricsAddr   string
	leaseGrace    int
	leaderElectNS string
	autoApprove   []string
}

func newCmdHub() *cobra.Command {
	o := &hubOptions{kube: kubeflags.New("hub"), leaderElect: true, probeAddr: "0", metricsAddr: "0", leaderElectNS: "open-cluster-management"}
	cmd := &cobra.Command{
		Use:   "hub",
		Short: "Run the hub's controllers (the registration core) until stopped",
		Long: `Run the hub's controllers against a hub prepared with 'corral init': they
accept, deny and clean up ManagedClusters and watch their leases. Several
copies may run; one leads.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.leaseGrace < 0 {
				return fmt.Errorf("--lease-grace-multiplier is %d: it must be 1 or more (0 for the default)", o.leaseGrace)
			}
			return o.run(cmd.Context())
		},
	}
	f := cmd.Flags()
	o.kube.AddFlags(f)
	f.BoolVar(&o.leaderElect, "leader-elect", o.leaderElect, "elect a leader among several copies")
	f.StringVar(&o.leaderElectNS, "leader-elect-namespace", o.leaderElectNS, "namespace of the leader election lease")
	f.StringVar(&o.probeAddr, "health-probe-bind-address", o.probeAddr, "address of /healthz and /readyz (0 disables)")
	f.StringVar(&o.metricsAddr, "metrics-bind-address", o.metricsAddr, "address of /metrics (0 disables)")
	f.StringSliceVar(&o.autoApprove, "auto-approve-users", nil, "users whose join requests for accepted clusters are approved without 'corral accept' (none by default)")
	f.IntVar(&o.leaseGrace, "lease-grace-multiplier", o.leaseGrace, "a cluster is unreachable after leaseDurationSeconds × this (0: the default, 5)")
	return cmd
}

func (o *hubOptions) run(ctx context.Context) error {
	cfg, err := o.kube.RESTConfig()
	if err != nil {
		return err
	}
	scheme, err := hub.Scheme()
	if err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(hub.WithClientLimits(cfg), ctrl.Options{
		Scheme:                  scheme,
		Cache:                   hub.CacheOptions(),
		Metrics:                 metricsserver.Options{BindAddress: o.metricsAddr},
		HealthProbeBindAddress:  o.probeAddr,
		LeaderElection:          o.leaderElect,
		LeaderElectionID:        "corral-hub",
		LeaderElectionNamespace: o.leaderElectNS,
	})
	if err != nil {
		return fmt.Errorf("setting up the hub's controllers: %w", err)
	}
	if err := hub.SetupWithManager(mgr, hub.Options{LeaseGraceMultiplier: o.leaseGrace, AutoApproveUsers: o.autoApprove}); err != nil {
		return err
	}
	ctrl.LoggerFrom(ctx).Info("Starting the hub's controllers", "hub", cfg.Host)
	return mgr.Start(ctx)
}
