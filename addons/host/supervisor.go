package host

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/clock"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/corral-dev/corral/addons"
)

// The condition and reasons the host reports a built-in agent's crashes
// with, on the addon's ManagedClusterAddOn.
const (
	ConditionDegraded = addonv1beta1.ManagedClusterAddOnConditionDegraded
	// ReasonAgentCrashed: the agent returned an error or panicked; it is
	// restarted with backoff.
	ReasonAgentCrashed = "AgentCrashed"
	// ReasonAgentRunning: the agent has run for StableAfter since its
	// last crash.
	ReasonAgentRunning = "AgentRunning"
)

// errReturned is the crash of an agent that returned nil before it was
// told to stop.
var errReturned = errors.New("the agent returned while it should still run")

// crashReporter is told of an agent's crashes and recoveries.
type crashReporter interface {
	crashed(ctx context.Context, addon string, err error, crashes int, restartIn time.Duration)
	recovered(ctx context.Context, addon string)
}

// supervisor runs one built-in agent.
type supervisor struct {
	cancel    context.CancelFunc
	done      chan struct{}
	creds     *credentials
	namespace string
}

func (s *supervisor) stop() {
	s.cancel()
	<-s.done
}

// supervise runs run until ctx ends, restarting it with backoff after it
// fails, panics or returns early; it resets the backoff, and reports the
// recovery, once a run has lasted stableAfter.
func supervise(ctx context.Context, clk clock.WithTicker, backoff wait.Backoff, stableAfter time.Duration,
	name string, run func(context.Context) error, report crashReporter,
) {
	b := backoff
	crashes := 0
	for {
		result := make(chan error, 1)
		go func() { result <- runSafely(ctx, run) }()
		err := waitRun(ctx, clk, stableAfter, result, func() {
			if crashes > 0 {
				report.recovered(ctx, name)
			}
			b, crashes = backoff, 0
		})
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			err = errReturned
		}
		crashes++
		after := b.Step()
		report.crashed(ctx, name, err, crashes, after)
		timer := clk.NewTimer(after)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C():
		}
	}
}

// waitRun waits for a run's result, calling stable once it has lasted
// stableAfter.
func waitRun(ctx context.Context, clk clock.WithTicker, stableAfter time.Duration, result <-chan error, stable func()) error {
	timer := clk.NewTimer(stableAfter)
	defer timer.Stop()
	select {
	case err := <-result:
		return err
	case <-timer.C():
		if ctx.Err() == nil {
			stable()
		}
	}
	return <-result
}

// runSafely runs run, turning a panic into an error.
func runSafely(ctx context.Context, run func(context.Context) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			log(ctx).Error(nil, "The addon agent panicked", "panic", r, "stack", string(debug.Stack()))
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return run(ctx)
}

// syncAgent runs a built-in addon's agent with its current hub
// credentials, restarting it when they change.
func (h *Host) syncAgent(ctx context.Context, st *addonState, mca *addonv1beta1.ManagedClusterAddOn) {
	a, ok := h.builtins[mca.Name]
	if !ok {
		return
	}
	creds := st.kubeClientCredentials()
	if creds == nil {
		log(ctx).V(1).Info("The built-in addon's hub kubeconfig is not ready yet; its agent waits", "addon", mca.Name)
		return
	}
	ns := installNamespace(mca)
	if st.agent != nil && st.agent.creds == creds && st.agent.namespace == ns {
		return
	}
	if st.agent != nil {
		log(ctx).Info("The addon's hub credentials or namespace changed; restarting its agent", "addon", mca.Name)
		st.stopAgent(ctx)
	}
	env := addons.AgentEnv{ClusterName: h.opts.ClusterName, InstallNamespace: ns, Hub: creds.hub, Managed: h.opts.Managed}
	st.agent = h.startAgent(ctx, a, env, hostReporter{h})
	st.agent.creds, st.agent.namespace = creds, ns
	log(ctx).Info("Started the addon's agent", "addon", mca.Name, "namespace", ns)
}

// startAgent supervises a's agent half with env.
func (h *Host) startAgent(ctx context.Context, a addons.Addon, env addons.AgentEnv, report crashReporter) *supervisor {
	ctx, cancel := context.WithCancel(withValues(ctx, "addon", a.Name))
	s := &supervisor{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		supervise(ctx, h.opts.Clock, h.opts.Restart, h.opts.StableAfter, a.Name,
			func(ctx context.Context) error { return a.RunAgent(ctx, env) }, report)
	}()
	return s
}

// RunAgents runs the built-in addons' agent halves in opts.Addons with
// opts.Hub as their hub identity, with no registration: no
// ManagedClusterAddOn is watched and no certificate asked for. It returns
// when ctx ends and every agent has stopped.
func RunAgents(ctx context.Context, opts Options, installNamespace string) error {
	if err := opts.complete(); err != nil {
		return err
	}
	if installNamespace == "" {
		installNamespace = DefaultInstallNamespace
	}
	h := &Host{opts: opts}
	var wg sync.WaitGroup
	for _, a := range opts.Addons {
		if a.RunAgent == nil {
			log(ctx).Info("The addon has no agent half; nothing to run", "addon", a.Name)
			continue
		}
		env := addons.AgentEnv{ClusterName: opts.ClusterName, InstallNamespace: installNamespace, Hub: opts.Hub, Managed: opts.Managed}
		s := h.startAgent(ctx, a, env, logReporter{})
		log(ctx).Info("Started the addon's agent", "addon", a.Name, "namespace", installNamespace)
		wg.Go(func() { <-s.done })
	}
	wg.Wait()
	return nil
}

// logReporter reports crashes in the log only.
type logReporter struct{}

func (logReporter) crashed(ctx context.Context, addon string, err error, crashes int, restartIn time.Duration) {
	log(ctx).Error(err, "The addon agent crashed; restarting it", "addon", addon, "crashes", crashes, "in", restartIn)
}

func (logReporter) recovered(ctx context.Context, addon string) {
	log(ctx).Info("The addon agent is running again", "addon", addon)
}
