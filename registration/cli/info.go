package cli

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	corralagent "github.com/corral-dev/corral/agent"
	"github.com/corral-dev/corral/deploy/charts"
	corralhub "github.com/corral-dev/corral/hub"
	"github.com/corral-dev/corral/install"
	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/internal/kubeflags"
	"github.com/corral-dev/corral/internal/output"
	"github.com/corral-dev/corral/registration/agent"
	"github.com/corral-dev/corral/registration/webhook"
)

// HubInfoOptions are the options of `corral get hub-info`.
type HubInfoOptions struct {
	Out       io.Writer
	Hub       hubclient.Hub
	Namespace string
	Output    string
}

// NewCmdGetHubInfo returns `corral get hub-info`.
func NewCmdGetHubInfo(out io.Writer) *cobra.Command {
	o := &HubInfoOptions{Out: out, Hub: hubclient.New(), Namespace: charts.HubNamespace}
	cmd := &cobra.Command{
		Use:   "hub-info",
		Short: "Show the installed hub: version, image, replicas, which copy leads",
		Long: `Show the hub 'corral init' installed (clusteradm's 'get hub-info'): its
version and image, how many of its replicas are ready and up to date, its
Deployment's conditions, and which copy holds each of its Leases (the
controllers' leader, and the one keeping the admission webhooks pointed at
itself).`,
		Example: "  corral get hub-info --kubeconfig hub.kubeconfig\n  corral get hub-info -o yaml",
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return hubclient.Run(cmd.Context(), o) },
	}
	o.Hub.AddFlags(cmd.Flags())
	cmd.Flags().StringVar(&o.Namespace, "namespace", o.Namespace, "namespace the hub was installed in")
	output.AddFlag(cmd.Flags(), &o.Output)
	return cmd
}

func (o *HubInfoOptions) Validate() error { return output.Validate(o.Output) }
func (o *HubInfoOptions) Complete() error { return o.Hub.Complete() }

// Run reads and prints the hub's Deployment and Leases.
func (o *HubInfoOptions) Run(ctx context.Context) error {
	c, err := install.NewClient(o.Hub.Config)
	if err != nil {
		return err
	}
	info, err := install.ReadInfo(ctx, c, o.Namespace, charts.HubDeployment, corralhub.LeaseName, webhook.LeaseName)
	if err != nil {
		return err
	}
	return output.Print(o.Out, o.Output, info, func(w io.Writer) { info.Print(w, "hub") })
}

// AgentInfoOptions are the options of `corral get agent-info`.
type AgentInfoOptions struct {
	Out     io.Writer
	Managed *kubeflags.Flags
	Output  string
}

// AgentInfo is what `corral get agent-info` says: the Deployment, and the
// identity the agent holds on its hub.
type AgentInfo struct {
	install.Info
	// ClusterName, Hub and CertificateExpires are of the hub identity the
	// agent keeps (empty before the hub accepted the cluster).
	ClusterName        string `json:"clusterName,omitempty"`
	Hub                string `json:"hub,omitempty"`
	CertificateExpires string `json:"certificateExpires,omitempty"`
}

// NewCmdGetAgentInfo returns `corral get agent-info`.
func NewCmdGetAgentInfo(out io.Writer) *cobra.Command {
	o := &AgentInfoOptions{Out: out, Managed: kubeflags.New("managed cluster")}
	cmd := &cobra.Command{
		Use:   "agent-info",
		Short: "Show a managed cluster's installed agent: version, replicas, leader, its hub identity",
		Long: `Show the agent 'corral join' installed on the managed cluster (--kubeconfig;
clusteradm's 'get klusterlet-info'): its version and image, how many of its
replicas are ready, which copy leads, and the hub identity it holds: the
cluster's name, the hub's address, and when its client certificate expires
(the agent renews it before).`,
		Example: "  corral get agent-info --kubeconfig cluster1.kubeconfig",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := output.Validate(o.Output); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	o.Managed.AddFlags(cmd.Flags())
	output.AddFlag(cmd.Flags(), &o.Output)
	return cmd
}

// Run reads and prints the agent's Deployment, Lease and hub identity.
func (o *AgentInfoOptions) Run(ctx context.Context) error {
	cfg, err := o.Managed.RESTConfig()
	if err != nil {
		return err
	}
	c, err := install.NewClient(cfg)
	if err != nil {
		return err
	}
	var info AgentInfo
	if info.Info, err = install.ReadInfo(ctx, c, charts.AgentNamespace, charts.AgentDeployment, corralagent.LeaseName); err != nil {
		return err
	}
	secret := &corev1.Secret{}
	err = c.Get(ctx, client.ObjectKey{Namespace: agent.DefaultSecretNamespace, Name: agent.DefaultSecretName}, secret)
	if client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("reading %s/%s: %w", agent.DefaultSecretNamespace, agent.DefaultSecretName, err)
	}
	if err == nil {
		info.ClusterName = string(secret.Data[agent.KeyClusterName])
		if kc, err := clientcmd.RESTConfigFromKubeConfig(secret.Data[agent.KeyKubeconfig]); err == nil {
			info.Hub = kc.Host
		}
		if block, _ := pem.Decode(secret.Data[agent.KeyCert]); block != nil {
			if cert, err := x509.ParseCertificate(block.Bytes); err == nil {
				info.CertificateExpires = cert.NotAfter.UTC().Format(time.RFC3339)
			}
		}
	}
	return output.Print(o.Out, o.Output, info, func(w io.Writer) {
		info.Print(w, "agent")
		if info.Hub == "" {
			fmt.Fprintf(w, "  hub identity: none yet (no kubeconfig in %s/%s: not joined, or not accepted yet)\n", agent.DefaultSecretNamespace, agent.DefaultSecretName)
			return
		}
		fmt.Fprintf(w, "  cluster: %s\n  hub:     %s\n  client certificate expires: %s\n", info.ClusterName, info.Hub, info.CertificateExpires)
	})
}
