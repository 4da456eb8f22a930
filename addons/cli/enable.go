package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/wait"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/internal/hubclient"
)

// EnableOptions are the options of `corral addon enable`.
type EnableOptions struct {
	Out    io.Writer
	Hub    hubclient.Hub
	Addons []string
	target
	// InstallNamespace is the namespace on the managed cluster the addon's
	// agent is installed in; empty leaves the hub's default
	// (open-cluster-management-agent-addon).
	InstallNamespace string
	// ConfigFlags are the --config values; Configs once validated, or
	// clearConfigs when they are NoConfig alone.
	ConfigFlags  []string
	Configs      []addonv1alpha1.AddOnConfig
	clearConfigs bool
	// Builtins are the built-in addons, whose AddOnDeploymentConfigs
	// enable validates before it writes anything.
	Builtins []addons.Addon
}

// NewEnableOptions returns the defaults.
func NewEnableOptions(out io.Writer, builtins ...addons.Addon) *EnableOptions {
	return &EnableOptions{Out: out, Hub: hubclient.New(), Builtins: builtins}
}

// NewCmdEnable returns `corral addon enable`; builtins are the built-in
// addons.
func NewCmdEnable(out io.Writer, builtins ...addons.Addon) *cobra.Command {
	o := NewEnableOptions(out, builtins...)
	cmd := &cobra.Command{
		Use:   "enable ADDON... (--clusters CLUSTER,... | --clusterset SET)",
		Short: "Enable addons on clusters: create their ManagedClusterAddOns",
		Long: `Enable addons on clusters: create a ManagedClusterAddOn for each addon in each
cluster's namespace on the hub; the addon's agent then runs on that cluster.

Every addon must be known to the hub (a ClusterManagementAddOn: see 'corral
addon list'), every cluster accepted, and an AddOnDeploymentConfig given to a
built-in addon with --config valid for it. Everything is checked first: when a
check fails nothing is created. Safe to run again; on an addon already
enabled, --namespace and --config, when given, replace what it had, and
--config none removes its configurations (the addon's defaults apply).`,
		Example: `  corral addon enable hello --clusters cluster1,cluster2
  corral addon enable hello --clusterset prod --namespace hello-agent
  corral addon enable hello --clusters cluster1 \
    --config addon.open-cluster-management.io/addondeploymentconfigs/cluster1/hello-config
  corral addon enable hello --clusters cluster1 --config none`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Addons = args
			return hubclient.Run(cmd.Context(), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the hub's flags, which clusters, --namespace and
// --config.
func (o *EnableOptions) AddFlags(fs *pflag.FlagSet) {
	o.Hub.AddFlags(fs)
	hubclient.AddClustersFlag(fs, &o.Clusters, "clusters to enable the addons on")
	fs.StringVar(&o.ClusterSet, "clusterset", "", "enable the addons on every cluster of this cluster set")
	fs.StringVar(&o.InstallNamespace, "namespace", "", "namespace on the managed cluster to install the addon agent in (default: open-cluster-management-agent-addon)")
	fs.StringArrayVar(&o.ConfigFlags, "config", nil, "a configuration of the addon, group/resource/[namespace/]name (repeatable); none removes them")
}

// Validate checks names, the clusters flags, the namespace and configs.
func (o *EnableOptions) Validate() error {
	if err := validateAddonNames(o.Addons); err != nil {
		return err
	}
	for _, a := range o.Builtins {
		if a.HubOnly() && slices.Contains(o.Addons, a.Name) {
			return fmt.Errorf("addon %s runs on the hub alone and serves every cluster from there: there is nothing to enable on a cluster", a.Name)
		}
	}
	if err := o.validateTarget(false); err != nil {
		return err
	}
	if o.InstallNamespace != "" {
		if errs := validation.IsDNS1123Label(o.InstallNamespace); len(errs) > 0 {
			return fmt.Errorf("--namespace %q is not a namespace name: %s", o.InstallNamespace, errs[0])
		}
	}
	o.Configs, o.clearConfigs = nil, slices.Contains(o.ConfigFlags, NoConfig)
	for _, s := range o.ConfigFlags {
		if s == NoConfig {
			continue
		}
		if o.clearConfigs {
			return fmt.Errorf("--config %s removes the addon's configurations, so it cannot be given with others", NoConfig)
		}
		ref, err := ParseConfig(s)
		if err != nil {
			return err
		}
		o.Configs = append(o.Configs, ref)
	}
	return nil
}

// Complete builds the hub client.
func (o *EnableOptions) Complete() error { return o.Hub.Complete() }

// Run checks every addon and cluster, then enables.
func (o *EnableOptions) Run(ctx context.Context) error {
	clusters, err := o.resolve(ctx, o.Hub.Client)
	if err != nil {
		return err
	}
	missing, err := checkConfigs(ctx, o.Hub.Client, o.Addons, o.Configs, o.Builtins)
	if err != nil {
		return err
	}
	changes, err := Enable(ctx, o.Hub.Client, o.Addons, clusters, EnableSpec{InstallNamespace: o.InstallNamespace, Configs: o.Configs, ClearConfigs: o.clearConfigs})
	for _, ch := range changes {
		fmt.Fprintf(o.Out, "addon %s %s on cluster %s\n", ch.Addon, ch.Action, ch.Cluster)
	}
	if err != nil {
		return err
	}
	for _, m := range missing {
		fmt.Fprintf(o.Out, "note: AddOnDeploymentConfig %s does not exist yet; the addon waits for it (Progressing) until it does\n", m)
	}
	for _, addon := range o.Addons {
		cma := &addonv1alpha1.ClusterManagementAddOn{}
		if err := o.Hub.Client.Get(ctx, client.ObjectKey{Name: addon}, cma); err == nil && isTemplateAddon(cma) {
			fmt.Fprintf(o.Out, "Warning: %s.\n", templateNotice(addon))
		}
	}
	return nil
}

// NoConfig, as the only --config, removes an enabled addon's
// configurations.
const NoConfig = "none"

// EnableSpec is what enable writes into each ManagedClusterAddOn; empty
// fields are left as the hub defaults them (or as they were).
type EnableSpec struct {
	InstallNamespace string
	Configs          []addonv1alpha1.AddOnConfig
	// ClearConfigs removes the configurations an enabled addon has.
	ClearConfigs bool
}

// What Enable did on one cluster.
const (
	ActionEnabled   = "enabled"
	ActionUpdated   = "updated"
	ActionUnchanged = "already enabled"
)

// Change is what Enable did for one addon on one cluster.
type Change struct {
	Addon, Cluster, Action string
}

// Enable creates the ManagedClusterAddOn of every addon on every cluster,
// after checking that the hub knows every addon and has accepted every
// cluster: when a check fails it writes nothing. An addon already enabled
// keeps its spec, except the fields spec gives.
func Enable(ctx context.Context, c client.Client, addons []string, clusters []clusterv1.ManagedCluster, spec EnableSpec) ([]Change, error) {
	if err := checkAddonsKnown(ctx, c, addons); err != nil {
		return nil, err
	}
	if err := checkAccepted(clusters); err != nil {
		return nil, err
	}
	log := ctrl.LoggerFrom(ctx)
	var changes []Change
	for _, mc := range clusters {
		for _, addon := range addons {
			action, err := enableOne(ctx, c, addon, mc.Name, spec)
			if err != nil {
				return changes, fmt.Errorf("enabling addon %s on cluster %s: %w", addon, mc.Name, err)
			}
			log.V(1).Info("Enabled addon", "addon", addon, "cluster", mc.Name, "action", action)
			changes = append(changes, Change{Addon: addon, Cluster: mc.Name, Action: action})
		}
	}
	return changes, nil
}

//nolint:staticcheck // installNamespace is the v1alpha1 field `--namespace` sets
func enableOne(ctx context.Context, c client.Client, addon, cluster string, spec EnableSpec) (string, error) {
	mca := &addonv1alpha1.ManagedClusterAddOn{}
	err := c.Get(ctx, client.ObjectKey{Namespace: cluster, Name: addon}, mca)
	if apierrors.IsNotFound(err) {
		mca = &addonv1alpha1.ManagedClusterAddOn{
			ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: addon},
			Spec:       addonv1alpha1.ManagedClusterAddOnSpec{InstallNamespace: spec.InstallNamespace, Configs: spec.Configs},
		}
		if err := c.Create(ctx, mca); err != nil && !apierrors.IsAlreadyExists(err) {
			return "", err
		}
		return ActionEnabled, nil
	}
	if err != nil {
		return "", err
	}
	if !mca.DeletionTimestamp.IsZero() {
		return "", errors.New("it is being disabled: run enable again once it is gone")
	}
	changed := false
	if spec.InstallNamespace != "" && spec.InstallNamespace != mca.Spec.InstallNamespace {
		mca.Spec.InstallNamespace, changed = spec.InstallNamespace, true
	}
	switch {
	case len(spec.Configs) > 0 && !slices.Equal(spec.Configs, mca.Spec.Configs):
		mca.Spec.Configs, changed = spec.Configs, true
	case spec.ClearConfigs && len(mca.Spec.Configs) > 0:
		mca.Spec.Configs, changed = nil, true
	}
	if !changed {
		return ActionUnchanged, nil
	}
	if err := c.Update(ctx, mca); err != nil {
		return "", err
	}
	return ActionUpdated, nil
}

// WaitForAddons waits, up to timeout, until the hub knows every addon (its
// ClusterManagementAddOn exists): the hub's addon manager creates them as
// it starts. The error names the addons still missing.
func WaitForAddons(ctx context.Context, c client.Reader, addons []string, timeout time.Duration) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		last = checkAddonsKnown(ctx, c, addons)
		if last != nil && !errors.Is(last, errUnknownAddon) {
			return false, last
		}
		return last == nil, nil
	})
	if err != nil && errors.Is(last, errUnknownAddon) {
		return fmt.Errorf("waited %s for the hub's addon manager: %w", timeout, last)
	}
	return err
}
