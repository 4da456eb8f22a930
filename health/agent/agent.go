package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/corral-dev/corral/addons/configmapchannel"
	"github.com/corral-dev/corral/addons/settings"
	"github.com/corral-dev/corral/health/api"
)

// Jitter spreads a fleet's probes: each wait is up to this share longer.
const Jitter = 0.1

// Bounds of a round of probes' timeout, which is the probe interval
// within them: a dead API server fails a probe at once (connection
// refused), a hung one after the timeout.
const (
	MinProbeTimeout = 3 * time.Second
	MaxProbeTimeout = 10 * time.Second
)

// Options configure the agent.
type Options struct {
	// ClusterName is the cluster namespace on the hub.
	ClusterName string
	// Hub reaches the hub as the addon's identity.
	Hub *rest.Config
	// Managed reaches the managed cluster: what is probed.
	Managed *rest.Config
	// Clock is injected for tests; the real clock when nil.
	Clock clock.WithTicker
}

// Agent probes and reports.
type Agent struct {
	opts        Options
	hub, kube   kubernetes.Interface
	last        *api.Report
	lastWritten time.Time
	// settings are the hub's.
	settings *settings.Follower[api.Settings]
}

// New checks opts and builds the agent's clients.
func New(opts Options) (*Agent, error) {
	if opts.ClusterName == "" || opts.Hub == nil || opts.Managed == nil {
		return nil, errors.New("the health agent needs a cluster name, a hub config and a managed cluster config")
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	hub, err := kubernetes.NewForConfig(opts.Hub)
	if err != nil {
		return nil, fmt.Errorf("the hub's client: %w", err)
	}
	managed := rest.CopyConfig(opts.Managed)
	// A dead API server must fail a probe quickly, not after client-go's
	// retries.
	managed.Timeout = MaxProbeTimeout
	kube, err := kubernetes.NewForConfig(managed)
	if err != nil {
		return nil, fmt.Errorf("the managed cluster's client: %w", err)
	}
	return &Agent{opts: opts, hub: hub, kube: kube, settings: newSettings(hub, opts)}, nil
}

// newSettings follows the ConfigMap api.ConfigName in the cluster
// namespace on the hub.
func newSettings(hub kubernetes.Interface, opts Options) *settings.Follower[api.Settings] {
	return settings.NewFollower(hub, opts.ClusterName, api.ConfigName, api.DefaultSettings(), api.Settings.Validate, opts.Clock)
}

// Run probes and reports every probe interval until ctx ends, following
// the hub's settings.
func Run(ctx context.Context, opts Options) error {
	a, err := New(opts)
	if err != nil {
		return err
	}
	a.settings.Run(ctx, settings.Rounds[api.Settings]{
		Round: a.Sync, Interval: probeInterval, Jitter: Jitter,
		Failed: "Reporting the cluster's health failed; trying again next interval",
	})
	return nil
}

// probeInterval is how often the agent probes under s.
func probeInterval(s api.Settings) time.Duration { return s.ProbeInterval.Duration }

// probeTimeout bounds a whole round of probes: the probe interval, within
// MinProbeTimeout and MaxProbeTimeout.
func probeTimeout(s api.Settings) time.Duration {
	return max(MinProbeTimeout, min(MaxProbeTimeout, s.ProbeInterval.Duration))
}

// Probe runs one round of probes, all at once and within probeTimeout: a
// hung API server costs one timeout per round, not one per probe, so
// reports keep coming well within staleAfter and say what failed.
func (a *Agent) Probe(ctx context.Context, s api.Settings) api.Report {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout(s))
	defer cancel()
	r := api.Report{ProbeTime: metav1.NewTime(a.opts.Clock.Now())}
	var wg sync.WaitGroup
	wg.Go(func() { r.Livez = probeEndpoint(ctx, a.kube, "/livez") })
	wg.Go(func() { r.Readyz = probeEndpoint(ctx, a.kube, "/readyz") })
	wg.Go(func() { r.Nodes = probeNodes(ctx, a.kube) })
	wg.Go(func() { r.Workloads = probeWorkloads(ctx, a.kube, s.Workloads) })
	wg.Wait()
	return r
}

// Sync probes and writes the report when it changed or the last one is
// getting old.
func (a *Agent) Sync(ctx context.Context, s api.Settings) error {
	r := a.Probe(ctx, s)
	heartbeat := max(s.ProbeInterval.Duration, s.StaleAfter.Duration/3)
	now := a.opts.Clock.Now()
	if a.last != nil && a.last.SameAs(r) && now.Sub(a.lastWritten) < heartbeat {
		ctrl.LoggerFrom(ctx).V(4).Info("Health unchanged; not reporting yet")
		return nil
	}
	ctrl.LoggerFrom(ctx).V(4).Info("Reporting health", "livez", r.Livez.OK, "readyz", r.Readyz.OK, "nodes", r.Nodes.Total, "ready", r.Nodes.Ready)
	if err := configmapchannel.Write(ctx, a.hub, a.opts.ClusterName, api.ReportName, api.AddonName, r); err != nil {
		return fmt.Errorf("reporting to the hub: %w", err)
	}
	a.last, a.lastWritten = &r, now
	return nil
}
