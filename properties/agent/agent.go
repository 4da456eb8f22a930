package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/addons/configmapchannel"
	"github.com/corral-dev/corral/addons/settings"
	"github.com/corral-dev/corral/properties/api"
)

// Jitter spreads the agents of a fleet started at once.
const Jitter = 0.1

// Options configure the agent.
type Options struct {
	// ClusterName is the cluster namespace on the hub.
	ClusterName string
	// Hub reaches the hub as the addon's identity.
	Hub *rest.Config
	// Managed reaches the managed cluster.
	Managed *rest.Config
	// Interval, when set, is how often it collects, and the hub's
	// settings are not followed: for tests and for callers that run the
	// agent on their own. Zero follows the hub's settings
	// (api.DefaultCollectInterval while there are none).
	Interval time.Duration
	// Clock is injected for tests; the real clock when nil.
	Clock clock.WithTicker
}

// Agent collects and reports.
type Agent struct {
	opts    Options
	hub     kubernetes.Interface
	kube    kubernetes.Interface
	managed client.Client
	last    *api.Report
	// settings are the hub's, followed unless opts.Interval is set.
	settings *settings.Follower[api.Settings]
}

// New checks opts and builds the agent's clients.
func New(opts Options) (*Agent, error) {
	if opts.ClusterName == "" || opts.Hub == nil || opts.Managed == nil {
		return nil, errors.New("the properties agent needs a cluster name, a hub config and a managed cluster config")
	}
	if opts.Interval < 0 {
		return nil, fmt.Errorf("the properties agent's interval %s is negative: give a positive duration", opts.Interval)
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	hub, err := kubernetes.NewForConfig(opts.Hub)
	if err != nil {
		return nil, fmt.Errorf("the hub's client: %w", err)
	}
	kube, err := kubernetes.NewForConfig(opts.Managed)
	if err != nil {
		return nil, fmt.Errorf("the managed cluster's client: %w", err)
	}
	scheme := runtime.NewScheme()
	if err := errors.Join(clientgoscheme.AddToScheme(scheme), clusterv1alpha1.Install(scheme)); err != nil {
		return nil, err
	}
	managed, err := client.New(opts.Managed, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("the managed cluster's client: %w", err)
	}
	return &Agent{opts: opts, hub: hub, kube: kube, managed: managed, settings: newSettings(hub, opts)}, nil
}

// newSettings follows the ConfigMap api.ConfigName in the cluster
// namespace on the hub.
func newSettings(hub kubernetes.Interface, opts Options) *settings.Follower[api.Settings] {
	return settings.NewFollower(hub, opts.ClusterName, api.ConfigName, api.DefaultSettings(), api.Settings.Validate, opts.Clock)
}

// Run collects and reports every interval until ctx ends, following the
// hub's settings unless opts.Interval is set. A failed round is logged
// and tried again the next interval.
func Run(ctx context.Context, opts Options) error {
	a, err := New(opts)
	if err != nil {
		return err
	}
	a.settings.Run(ctx, settings.Rounds[api.Settings]{
		Round:    func(ctx context.Context, _ api.Settings) error { return a.Sync(ctx) },
		Interval: a.interval, Jitter: Jitter,
		Failed: "Reporting the cluster's properties failed; trying again next interval",
		Fixed:  opts.Interval > 0,
	})
	return nil
}

// interval is how often the agent collects under s: opts.Interval when
// set.
func (a *Agent) interval(s api.Settings) time.Duration {
	if a.opts.Interval > 0 {
		return a.opts.Interval
	}
	return s.CollectInterval.Duration
}

// Sync is one round: collect, write the claims, report when changed.
func (a *Agent) Sync(ctx context.Context) error {
	version, err := a.kube.Discovery().ServerVersion()
	if err != nil {
		return fmt.Errorf("reading the managed API server's version: %w", err)
	}
	nodes := &corev1.NodeList{}
	if err := a.managed.List(ctx, nodes); err != nil {
		return fmt.Errorf("listing nodes: %w", err)
	}
	observed := Collect(version.GitVersion, nodes.Items)
	own := observed.Claims()
	user, err := syncClaims(ctx, a.managed, own)
	if err != nil {
		return err
	}
	claims, dropped := api.Bound(own, user)
	r := api.Report{
		ObservedTime:      metav1.NewTime(a.opts.Clock.Now()),
		KubernetesVersion: observed.Version,
		Nodes:             observed.Nodes,
		Capacity:          canonical(observed.Capacity),
		Allocatable:       canonical(observed.Allocatable),
		Claims:            claims,
		Dropped:           dropped,
	}
	return a.report(ctx, r)
}

// report writes r unless the hub already has the same properties.
func (a *Agent) report(ctx context.Context, r api.Report) error {
	if a.last == nil {
		var stored api.Report
		found, err := configmapchannel.Read(ctx, a.hub, a.opts.ClusterName, api.ReportName, &stored)
		if err != nil {
			ctrl.LoggerFrom(ctx).V(1).Info("The stored report cannot be read; writing a new one", "err", err)
		} else if found {
			a.last = &stored
		}
	}
	if a.last != nil && a.last.SameAs(r) {
		ctrl.LoggerFrom(ctx).V(4).Info("Properties unchanged; not reporting")
		return nil
	}
	ctrl.LoggerFrom(ctx).V(1).Info("Reporting changed properties", "nodes", r.Nodes, "version", r.KubernetesVersion, "claims", len(r.Claims), "dropped", len(r.Dropped))
	if err := configmapchannel.Write(ctx, a.hub, a.opts.ClusterName, api.ReportName, api.AddonName, r); err != nil {
		return fmt.Errorf("reporting to the hub: %w", err)
	}
	a.last = &r
	return nil
}
