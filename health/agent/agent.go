package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/corral-dev/corral/addons/report"
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
	return &Agent{opts: opts, hub: hub, kube: kube}, nil
}

// Run probes and reports every interval until ctx ends.
func Run(ctx context.Context, opts Options) error {
	a, err := New(opts)
	if err != nil {
		return err
	}
	for {
		settings := a.Settings(ctx)
		if err := a.Sync(ctx, settings); err != nil && ctx.Err() == nil {
			ctrl.LoggerFrom(ctx).Error(err, "Reporting the cluster's health failed; trying again next interval")
		}
		select {
		case <-ctx.Done():
			return nil
		case <-a.opts.Clock.After(wait.Jitter(settings.ProbeInterval.Duration, Jitter)):
		}
	}
}

// Settings reads the settings the hub resolved; the defaults when there
// are none or they cannot be read.
func (a *Agent) Settings(ctx context.Context) api.Settings {
	s := api.DefaultSettings()
	found, err := report.Read(ctx, a.hub, a.opts.ClusterName, api.ConfigName, &s)
	switch {
	case err != nil:
		ctrl.LoggerFrom(ctx).Error(err, "Reading the health settings failed; probing with the defaults")
		return api.DefaultSettings()
	case !found:
		ctrl.LoggerFrom(ctx).V(4).Info("No health settings from the hub; probing with the defaults")
	}
	if s.ProbeInterval.Duration <= 0 {
		return api.DefaultSettings()
	}
	return s
}

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
	if err := report.Write(ctx, a.hub, a.opts.ClusterName, api.ReportName, api.AddonName, r); err != nil {
		return fmt.Errorf("reporting to the hub: %w", err)
	}
	a.last, a.lastWritten = &r, now
	return nil
}
