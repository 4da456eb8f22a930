package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/corral-dev/corral/deploy/charts"
	"github.com/corral-dev/corral/install"
	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/internal/version"
	"github.com/corral-dev/corral/registration/bootstrap"
	"github.com/corral-dev/corral/registration/webhook"
)

// DefaultInstallTimeout bounds each wait of init and join: a rollout, the
// webhooks answering, a cluster becoming Available.
const DefaultInstallTimeout = 5 * time.Minute

// InitOptions are the options of `corral init`: it ends as `corral get
// token` does.
type InitOptions struct {
	TokenOptions
	// Install is what is installed; its Deployment field is --deploy.
	Install install.Hub
	// Output, when set, prints the objects instead of installing them.
	Output  string
	Timeout time.Duration
}

// NewInitOptions returns the defaults: the hub's controllers deployed, of
// this binary's version, a one-hour bootstrap token.
func NewInitOptions(out io.Writer) *InitOptions {
	return &InitOptions{
		TokenOptions: *NewTokenOptions(out),
		Install:      install.Hub{Deployment: true, Namespace: charts.HubNamespace, Version: version.Get().Version},
		Timeout:      DefaultInstallTimeout,
	}
}

// NewCmdInit returns `corral init`.
func NewCmdInit(out io.Writer) *cobra.Command {
	o := NewInitOptions(out)
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Install the corral hub into a Kubernetes cluster and print the join line",
		Long: `Install the corral hub into a Kubernetes cluster (--kubeconfig): the Open
Cluster Management CRDs, the bootstrap identity new clusters ask to join
with, and the hub's controllers as a Deployment (2 replicas, one leading)
in --namespace, with the least RBAC they need and their admission webhooks
behind a Service, with a certificate the hub makes and rotates itself. It
waits until the hub serves, then prints the 'corral join' line, with a
bootstrap token, that a cluster joins with.

Safe to run again: a hub of another version is upgraded in place (rolling,
one replica at a time), one of this version is set back to what it should
be. Every step is shown; a failure says which step and what to do.

--output yaml prints the objects instead, for GitOps (the same objects the
Helm chart deploy/charts/corral-hub makes); nothing is contacted.
--deploy=false installs only the CRDs and the bootstrap identity, for the
hub's controllers run elsewhere with 'corral hub' (as 'corral dev up'
does).`,
		Example: `  corral init --kubeconfig hub.kubeconfig
  corral init --image registry.example/corral:v0.2.0 --kubeconfig hub.kubeconfig
  corral init --output yaml > corral-hub.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Output != "" {
				return o.Print()
			}
			return hubclient.Run(cmd.Context(), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the hub's flags, --token-ttl and what to install.
func (o *InitOptions) AddFlags(fs *pflag.FlagSet) {
	o.addFlags(fs, "how long the printed bootstrap token is valid (at least 10m)")
	addInstallFlags(fs, &o.Install.Image, &o.Install.Replicas, &o.Install.Addons, &o.Output, &o.Timeout, "hub")
	fs.StringVar(&o.Install.Namespace, "namespace", o.Install.Namespace, "namespace the hub's controllers run in")
	fs.BoolVar(&o.Install.Deployment, "deploy", o.Install.Deployment, "run the hub's controllers in the cluster; false installs only the CRDs and the bootstrap identity, for 'corral hub' run elsewhere")
}

// addInstallFlags registers the flags init and join share.
func addInstallFlags(fs *pflag.FlagSet, image *string, replicas *int, addonNames *[]string, output *string, timeout *time.Duration, what string) {
	fs.StringVar(image, "image", "", "the corral image the "+what+" runs, REPOSITORY:TAG or REPOSITORY@sha256:… (default ghcr.io/corral-dev/corral:<this corral's version>)")
	fs.IntVar(replicas, "replicas", 0, "replicas of the "+what+" Deployment; one leads, another takes over when it goes (default 2)")
	fs.StringSliceVar(addonNames, "addons", nil, "built-in addons whose "+what+" halves run, comma-separated (default: all)")
	fs.StringVarP(output, "output", "o", "", "print the objects as yaml or json instead of installing them")
	fs.DurationVar(timeout, "timeout", *timeout, "how long each wait (a rollout, the hub's webhooks answering, the cluster becoming Available) may take")
}

// validateInstall checks what init and join share.
func validateInstall(replicas int, output string, timeout time.Duration) error {
	switch {
	case replicas < 0:
		return fmt.Errorf("--replicas is %d: give 1 or more", replicas)
	case output != "" && output != "yaml" && output != "json":
		return fmt.Errorf("--output %q is not supported: use yaml or json, or leave it out to install", output)
	case timeout <= 0:
		return fmt.Errorf("--timeout is %s: give a positive time, such as 5m", timeout)
	}
	return nil
}

// Validate checks the flags.
func (o *InitOptions) Validate() error {
	if err := validateInstall(o.Install.Replicas, o.Output, o.Timeout); err != nil {
		return err
	}
	return o.TokenOptions.Validate()
}

// Print prints what init would install, contacting nothing.
func (o *InitOptions) Print() error {
	if err := o.Validate(); err != nil {
		return err
	}
	objs, err := o.Install.Objects()
	if err != nil {
		return err
	}
	return install.Print(o.Out, o.Output, objs)
}

// Run installs or upgrades the hub, waits until it serves, and prints the
// join line.
func (o *InitOptions) Run(ctx context.Context) error {
	objs, err := o.Install.Objects()
	if err != nil {
		return err
	}
	c, err := install.NewClient(o.Hub.Config)
	if err != nil {
		return err
	}
	s := steps{out: o.Out}
	if o.Install.Deployment {
		installed, err := install.ReadInfo(ctx, c, o.Install.Namespace, charts.HubDeployment)
		if err != nil {
			return err
		}
		s.announce("hub", installed.Version, o.Install.Version, o.Hub.Config.Host)
		s.total = 4
	} else {
		s.total = 2
		fmt.Fprintf(o.Out, "Installing the CRDs and the bootstrap identity of a corral hub on %s (its controllers run elsewhere: 'corral hub')\n", o.Hub.Config.Host)
	}
	if err := s.do(fmt.Sprintf("applying %d objects", len(objs)), func() error { return install.Apply(ctx, c, objs, false, o.Out) }); err != nil {
		return err
	}
	if o.Install.Deployment {
		if err := s.do("waiting for the hub's Deployment to roll out", func() error {
			return install.WaitRollout(ctx, c, o.Install.Namespace, charts.HubDeployment, o.Timeout, o.Out)
		}); err != nil {
			return err
		}
		if err := s.do("waiting for the hub's admission webhooks to answer through their Service", func() error {
			return webhook.WaitServing(ctx, o.Hub.Client, o.Timeout)
		}); err != nil {
			return err
		}
	}
	if err := s.do(fmt.Sprintf("publishing the hub's address and CA in %s/%s", bootstrap.ClusterInfoNamespace, bootstrap.ClusterInfoName), func() error {
		return bootstrap.PublishClusterInfo(ctx, o.Hub.Kube, o.Hub.Config)
	}); err != nil {
		return err
	}
	fmt.Fprintln(o.Out, "\nThe hub is ready. A cluster's agent asks to join with:")
	return o.TokenOptions.Run(ctx)
}

// InstallHub installs what `corral init --deploy=false` does — the CRDs and
// the bootstrap identity — and publishes the hub's address and CA, saying
// each object on out: for a hub whose controllers run in-process (the dev
// fleet, the suites).
func InstallHub(ctx context.Context, cfg *rest.Config, out io.Writer) error {
	objs, err := install.Hub{Version: version.Get().Version}.Objects()
	if err != nil {
		return err
	}
	c, err := install.NewClient(cfg)
	if err != nil {
		return err
	}
	if err := install.Apply(ctx, c, objs, false, out); err != nil {
		return err
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "publishing the hub's address and CA in %s/%s\n", bootstrap.ClusterInfoNamespace, bootstrap.ClusterInfoName)
	return bootstrap.PublishClusterInfo(ctx, kube, cfg)
}

// steps numbers and runs the steps of an install, saying each before it
// runs and naming it when it fails.
type steps struct {
	out         io.Writer
	total, done int
}

// announce says what is about to happen to what (the hub, an agent) on
// host: a first install, an upgrade, or setting this version right again.
func (s *steps) announce(what, installed, version, host string) {
	switch installed {
	case "":
		fmt.Fprintf(s.out, "Installing the corral %s %s on %s\n", what, version, host)
	case version:
		fmt.Fprintf(s.out, "The corral %s %s is installed on %s; making sure it is as it should be\n", what, version, host)
	default:
		fmt.Fprintf(s.out, "Upgrading the corral %s on %s from %s to %s\n", what, host, installed, version)
	}
}

// do runs one step.
func (s *steps) do(what string, run func() error) error {
	s.done++
	fmt.Fprintf(s.out, "[%d/%d] %s\n", s.done, s.total, what)
	if err := run(); err != nil {
		return fmt.Errorf("step %d/%d, %s: %w", s.done, s.total, what, err)
	}
	return nil
}
