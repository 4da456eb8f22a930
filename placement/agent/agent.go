package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	placementapi "github.com/corral-dev/corral/placement/api"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"open-cluster-management.io/addon-framework/pkg/lease"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/corral-dev/corral/addons"
)

const (
	// DefaultMinInterval is the least time between two writes of the
	// scores.
	DefaultMinInterval = 10 * time.Second
	// DefaultValidFor is how long written scores are valid (validUntil).
	DefaultValidFor = 10 * time.Minute
	// firstRetry is the wait after a failed publish; it doubles up to
	// maxRetry.
	firstRetry = time.Second
	maxRetry   = time.Minute
)

// Options tune the agent; the zero value is the defaults.
type Options struct {
	// Clock is the agent's time; nil means the real clock.
	Clock clock.Clock
	// MinInterval is the least time between two writes; 0 means
	// DefaultMinInterval.
	MinInterval time.Duration
	// ValidFor is how long written scores are valid; 0 means
	// DefaultValidFor. The agent rewrites them, unchanged, when less than
	// half of it is left.
	ValidFor time.Duration
}

func (o Options) withDefaults() (Options, error) {
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.MinInterval == 0 {
		o.MinInterval = DefaultMinInterval
	}
	if o.ValidFor == 0 {
		o.ValidFor = DefaultValidFor
	}
	if o.MinInterval < 0 || o.ValidFor < 2*o.MinInterval {
		return o, fmt.Errorf("the placement agent's validity (%s) must be at least twice its minimum interval (%s), which must not be negative", o.ValidFor, o.MinInterval)
	}
	return o, nil
}

// Run is the placement addon's agent half with the default Options: the
// RunAgent of the placement addon.
func Run(ctx context.Context, env addons.AgentEnv) error {
	return Options{}.Run(ctx, env)
}

// Run publishes the cluster's resource scores and renews the addon's lease
// until ctx ends.
func (o Options) Run(ctx context.Context, env addons.AgentEnv) error {
	o, err := o.withDefaults()
	if err != nil {
		return err
	}
	if env.ClusterName == "" || env.InstallNamespace == "" || env.Hub == nil || env.Managed == nil {
		return errors.New("the placement agent needs a cluster name, an install namespace, a hub config and a managed cluster config")
	}
	managed, err := kubernetes.NewForConfig(env.Managed)
	if err != nil {
		return fmt.Errorf("building the managed cluster's client: %w", err)
	}
	hub, err := clusterclient.NewForConfig(env.Hub)
	if err != nil {
		return fmt.Errorf("building the hub client: %w", err)
	}
	logger := klog.FromContext(ctx).WithValues("cluster", env.ClusterName)
	ctx = klog.NewContext(ctx, logger)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go lease.NewLeaseUpdater(managed, AddonName, env.InstallNamespace).Start(ctx)

	factory := informers.NewSharedInformerFactoryWithOptions(managed, 0, informers.WithTransform(crcache.TransformStripManagedFields()))
	defer factory.Shutdown()
	nodes, pods := factory.Core().V1().Nodes(), factory.Core().V1().Pods()
	changed := make(chan struct{}, 1)
	notify := func(any) {
		select {
		case changed <- struct{}{}:
		default: // a recompute is pending already
		}
	}
	handler := cache.ResourceEventHandlerFuncs{AddFunc: notify, UpdateFunc: func(_, n any) { notify(n) }, DeleteFunc: notify}
	for _, inf := range []cache.SharedIndexInformer{nodes.Informer(), pods.Informer()} {
		if _, err := inf.AddEventHandler(handler); err != nil {
			return fmt.Errorf("watching the managed cluster: %w", err)
		}
	}
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), nodes.Informer().HasSynced, pods.Informer().HasSynced) {
		return nil // ctx ended
	}
	logger.Info("Publishing the cluster's resource scores", "namespace", env.ClusterName, "name", placementapi.ScoreName)

	l := loop{
		clock:       o.Clock,
		minInterval: o.MinInterval,
		changed:     changed,
		scores: func() ([]clusterv1alpha1.AddOnPlacementScoreItem, error) {
			ns, err := nodes.Lister().List(labels.Everything())
			if err != nil {
				return nil, err
			}
			ps, err := pods.Lister().List(labels.Everything())
			if err != nil {
				return nil, err
			}
			return Scores(Compute(ns, ps)), nil
		},
		publish: (&publisher{
			client: hub.ClusterV1alpha1(), namespace: env.ClusterName, clock: o.Clock, validFor: o.ValidFor,
		}).publish,
	}
	l.run(ctx)
	return nil
}

// loop recomputes and publishes the scores on every change, at most once
// per minInterval after a write, and again when publish says so.
type loop struct {
	clock       clock.Clock
	minInterval time.Duration
	changed     <-chan struct{}
	scores      func() ([]clusterv1alpha1.AddOnPlacementScoreItem, error)
	// publish writes the scores if needed, and says when to publish again
	// if nothing changes and whether it wrote.
	publish func(context.Context, []clusterv1alpha1.AddOnPlacementScoreItem) (time.Time, bool, error)
}

// run loops until ctx ends.
func (l *loop) run(ctx context.Context) {
	logger := klog.FromContext(ctx)
	var lastWrite, next time.Time // next zero: publish at once
	retry := firstRetry
	for {
		if !next.IsZero() && !l.waitForChange(ctx, next.Sub(l.clock.Now())) {
			return
		}
		if !lastWrite.IsZero() && !l.sleep(ctx, lastWrite.Add(l.minInterval).Sub(l.clock.Now())) {
			return
		}
		select { // what changed until now is in this computation
		case <-l.changed:
		default:
		}
		scores, err := l.scores()
		var wrote bool
		if err == nil {
			next, wrote, err = l.publish(ctx, scores)
		}
		if err != nil {
			logger.Error(err, "Publishing the cluster's resource scores failed; retrying", "after", retry)
			next, retry = l.clock.Now().Add(retry), min(2*retry, maxRetry)
			continue
		}
		retry = firstRetry
		if wrote {
			lastWrite = l.clock.Now()
		}
		logger.V(4).Info("Computed the cluster's resource scores", "scores", scores, "wrote", wrote, "next", next)
	}
}

// waitForChange waits until something changed or d passed; false when ctx
// ended.
func (l *loop) waitForChange(ctx context.Context, d time.Duration) bool {
	t := l.clock.NewTimer(max(d, 0))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-l.changed:
		return true
	case <-t.C():
		return true
	}
}

// sleep waits d; false when ctx ended.
func (l *loop) sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := l.clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C():
		return true
	}
}
