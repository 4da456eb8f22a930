package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/addons/host"
	regagent "github.com/corral-dev/corral/registration/agent"
)

// identityCheckInterval is how often the addon host looks whether the
// registration agent's hub identity changed (it rotated).
const identityCheckInterval = 30 * time.Second

// validateNoRegistration checks what --no-registration needs.
func (o *Options) validateNoRegistration() error {
	if o.HubKubeconfig == "" {
		return fmt.Errorf("--no-registration needs --hub-kubeconfig: the kubeconfig the addons' agents reach the hub with")
	}
	if o.BootstrapKubeconfig != "" || o.HubKubeconfigFile != "" || o.AgentID != "" || o.ClusterURL != "" || len(o.ClusterLabels)+len(o.ClusterAnnotations) > 0 {
		return fmt.Errorf("--no-registration runs no registration agent: drop --bootstrap-kubeconfig, --hub-kubeconfig-file, --agent-id, --cluster-url, --cluster-labels and --cluster-annotations")
	}
	for _, a := range o.selected {
		if a.RunAgent != nil {
			return nil
		}
	}
	return fmt.Errorf("--no-registration: none of the addons %v has an agent half to run", addons.Names(o.selected))
}

// Run validates o and runs the agent until ctx ends: the registration
// agent and the addon host, or, with --no-registration, only the addons'
// agent halves; with --leader-elect, once this copy leads.
func (o *Options) Run(ctx context.Context) error {
	if err := o.Validate(); err != nil {
		return err
	}
	managed, err := o.managedConfig()
	if err != nil {
		return err
	}
	if _, err := servePprof(ctx, o.PprofAddr); err != nil {
		return err
	}
	if _, err := serveProbes(ctx, o.ProbeAddr); err != nil {
		return err
	}
	if !o.LeaderElect {
		return stopped(ctx, o.run(ctx, managed))
	}
	kube, err := kubernetes.NewForConfig(managed)
	if err != nil {
		return err
	}
	return stopped(ctx, runElected(ctx, kube, o.LeaderElectNamespace, defaultTiming, func(ctx context.Context) error { return o.run(ctx, managed) }))
}

// stopped is err, except that an agent stopped (SIGTERM, Ctrl-C: ctx
// ended) stops without an error, so that its process exits 0.
func stopped(ctx context.Context, err error) error {
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// run runs what Run does, in this copy.
func (o *Options) run(ctx context.Context, managed *rest.Config) error {
	if o.NoRegistration {
		hub, err := clientcmd.BuildConfigFromFlags("", o.HubKubeconfig)
		if err != nil {
			return fmt.Errorf("--hub-kubeconfig %s: %w", o.HubKubeconfig, err)
		}
		return host.RunAgents(ctx, host.Options{ClusterName: o.ClusterName, Hub: hub, Managed: managed, Addons: o.selected}, o.AddonNamespace)
	}
	a, err := o.Complete(ctx)
	if err != nil {
		return err
	}
	return RunWithAddonHost(ctx, a, host.Options{ClusterName: o.ClusterName, Managed: managed, Addons: o.selected})
}

// RunWithAddonHost runs the registration agent a and, beside it, the addon
// host with opts, until ctx ends or either fails: the agent does not go on
// without its addon host.
func RunWithAddonHost(ctx context.Context, a *regagent.Agent, opts host.Options) error {
	if err := a.ForgetOtherHub(ctx); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	hostDone := make(chan error, 1)
	go func() {
		err := runAddonHost(ctx, opts)
		if err != nil {
			cancel()
			err = fmt.Errorf("the addon host: %w", err)
		}
		hostDone <- err
	}()
	err := a.Run(ctx)
	cancel()
	return errors.Join(err, <-hostDone)
}

// runAddonHost runs the addon host with the registration agent's hub
// identity, as stored on opts.Managed, once there is one; it starts
// the host again when the identity changes (rotated). opts.Hub and
// opts.AgentName are filled from the stored identity. It returns when ctx
// ends. RunWithAddonHost runs it beside the registration agent.
func runAddonHost(ctx context.Context, opts host.Options) error {
	kube, err := kubernetes.NewForConfig(opts.Managed)
	if err != nil {
		return err
	}
	var last []byte
	for ctx.Err() == nil {
		kubeconfig, agentName, ok := nextIdentity(ctx, kube, last)
		if !ok {
			return nil // ctx ended
		}
		opts.AgentName = agentName
		last = kubeconfig
		if opts.Hub, err = clientcmd.RESTConfigFromKubeConfig(kubeconfig); err != nil {
			return fmt.Errorf("the registration agent's stored hub kubeconfig: %w", err)
		}
		if err := runHostUntilChanged(ctx, kube, opts, kubeconfig); err != nil {
			return err
		}
	}
	return nil
}

// nextIdentity waits until the registration agent has stored a hub
// identity other than last; ok is false when ctx ended first.
func nextIdentity(ctx context.Context, kube kubernetes.Interface, last []byte) (kubeconfig []byte, agentName string, ok bool) {
	err := wait.PollUntilContextCancel(ctx, 2*time.Second, true, func(ctx context.Context) (bool, error) {
		var err error
		kubeconfig, agentName, err = registrationIdentity(ctx, kube)
		return err == nil && len(kubeconfig) > 0 && !bytes.Equal(kubeconfig, last), nil
	})
	return kubeconfig, agentName, err == nil
}

// runHostUntilChanged runs a host until ctx ends or the stored identity is
// no longer kubeconfig: another one, or none (the agent is joining another
// hub).
func runHostUntilChanged(ctx context.Context, kube kubernetes.Interface, opts host.Options, kubeconfig []byte) error {
	h, err := host.New(opts)
	if err != nil {
		return err
	}
	hostCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		_ = wait.PollUntilContextCancel(hostCtx, identityCheckInterval, false, func(ctx context.Context) (bool, error) {
			now, _, err := registrationIdentity(ctx, kube)
			return err == nil && !bytes.Equal(now, kubeconfig), nil
		})
		if hostCtx.Err() == nil {
			klog.FromContext(ctx).Info("The registration agent's hub identity changed; restarting the addon host")
		}
		cancel()
	}()
	return h.Run(hostCtx)
}

// registrationIdentity reads the registration agent's stored hub
// kubeconfig and agent name.
func registrationIdentity(ctx context.Context, kube kubernetes.Interface) ([]byte, string, error) {
	s, err := kube.CoreV1().Secrets(regagent.DefaultSecretNamespace).Get(ctx, regagent.DefaultSecretName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	return s.Data[regagent.KeyKubeconfig], string(s.Data[regagent.KeyAgentName]), nil
}
