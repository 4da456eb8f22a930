package hub

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"
	clusterinformers "open-cluster-management.io/api/client/cluster/informers/externalversions"
	clusterlisters "open-cluster-management.io/api/client/cluster/listers/cluster/v1beta1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// Options configure the placement scheduler.
type Options struct {
	// Clock is injected for tests; nil means the real clock.
	Clock clock.WithTicker
	// Workers is how many placements are scheduled and written at once;
	// 0 means DefaultWorkers.
	Workers int
	// ScoreInterval is the score rate limit of a placement whose spec
	// leaves scoreRateLimit out (the CRD defaults it to 1m, so only on a
	// hub without that default): how often score changes that do not
	// change the selected clusters are written into its decisions. 0
	// means DefaultScoreInterval.
	ScoreInterval time.Duration
}

// DefaultWorkers: scheduling one placement takes well under a
// millisecond; writing it is a few requests, which these overlap. With
// more writes in flight the API server also spends less CPU on each: 1000
// placements took 3.84-4.00 s with 64 where 16 took 4.00-4.34 s, but with
// 10 000 placements 64 peaked at 202 MB, where 32 stays at 184 MB.
const DefaultWorkers = 32

// DefaultScoreInterval bounds the churn scores bring when a placement
// sets no scoreRateLimit: its decisions' scores are rewritten at most
// this often while its clusters stay the same.
const DefaultScoreInterval = 10 * time.Second

// Client limits of the scheduler: a thousand new placements are three
// thousand small writes; client-go's defaults (5 per second) would take
// ten minutes. The hub's API server protects itself with priority and
// fairness.
const (
	DefaultQPS   = 5000
	DefaultBurst = 10000
)

// Controller is the placement scheduler.
type Controller struct {
	opts   Options
	client clusterclient.Interface
	state  *state
	// decisions is the informer's store of PlacementDecisions.
	decisions clusterlisters.PlacementDecisionLister
	queue     workqueue.TypedRateLimitingInterface[types.NamespacedName]
	// timers hold the placements to schedule again at a time of the
	// injected clock (a toleration or a score running out, the score rate
	// limit), then hand them to queue. Retries after errors keep to the
	// real clock.
	timers workqueue.TypedDelayingInterface[types.NamespacedName]
	synced bool
	syncMu sync.RWMutex
	// log is Start's logger, for the informers' handlers.
	log logr.Logger
}

// New returns a scheduler that talks to the hub at cfg, with the
// scheduler's client limits unless cfg sets higher ones.
func New(cfg *rest.Config, opts Options) (*Controller, error) {
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	if opts.Workers <= 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.ScoreInterval <= 0 {
		opts.ScoreInterval = DefaultScoreInterval
	}
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = max(cfg.QPS, DefaultQPS), max(cfg.Burst, DefaultBurst)
	c, err := clusterclient.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the hub's cluster client: %w", err)
	}
	return &Controller{
		opts: opts, client: c, state: newState(),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[types.NamespacedName](),
			workqueue.TypedRateLimitingQueueConfig[types.NamespacedName]{Name: "placement-scheduler"}),
		timers: workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[types.NamespacedName]{
			Name: "placement-scheduler-timers", Clock: opts.Clock}),
	}, nil
}

// SetupWithManager adds the scheduler to mgr: it runs while mgr leads.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	c, err := New(mgr.GetConfig(), opts)
	if err != nil {
		return err
	}
	return mgr.Add(manager.RunnableFunc(c.Start))
}

// Start runs the scheduler until ctx ends: informers first, every
// placement scheduled once they have synced, then only what changes.
func (c *Controller) Start(ctx context.Context) error {
	log := ctrl.LoggerFrom(ctx).WithName("placement-scheduler")
	ctx = ctrl.LoggerInto(ctx, log)
	c.log = log
	factory := clusterinformers.NewSharedInformerFactoryWithOptions(c.client, 0, clusterinformers.WithTransform(trim))
	handled, err := c.watch(factory)
	if err != nil {
		return err
	}
	c.decisions = factory.Cluster().V1beta1().PlacementDecisions().Lister()
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	defer c.queue.ShutDown()
	defer c.timers.ShutDown()
	go func() {
		for {
			key, shutdown := c.timers.Get()
			if shutdown {
				return
			}
			c.timers.Done(key)
			c.queue.Add(key)
		}
	}()
	// The handlers, not only the informers, must have seen every object
	// listed: the state is what the scheduler reads.
	if !cache.WaitForCacheSync(ctx.Done(), handled...) {
		return fmt.Errorf("the scheduler's informers did not sync: %w", errors.Join(ctx.Err(), errors.New("cache sync failed")))
	}
	c.syncMu.Lock()
	c.synced = true
	c.syncMu.Unlock()
	c.state.mu.RLock()
	for key := range c.state.placements {
		c.queue.Add(key)
	}
	n := len(c.state.placements)
	c.state.mu.RUnlock()
	log.Info("Starting the placement scheduler", "placements", n, "workers", c.opts.Workers)
	var wg sync.WaitGroup
	for range c.opts.Workers {
		wg.Go(func() {
			for c.next(ctx) {
			}
		})
	}
	<-ctx.Done()
	c.queue.ShutDown()
	wg.Wait()
	return nil
}

// trim is the informers' transform: it drops what the scheduler never
// reads, every object's managed fields and a PlacementDecision's owner
// references, since with thousands of placements the informers' objects
// are most of the scheduler's memory.
func trim(obj any) (any, error) {
	obj, err := stripManagedFields(obj)
	if d, ok := obj.(*clusterv1beta1.PlacementDecision); ok && d.OwnerReferences != nil {
		d.OwnerReferences = nil
	}
	return obj, err
}

var stripManagedFields = crcache.TransformStripManagedFields()

// isSynced says whether the informers have synced: before, events only
// fill the state, and Start schedules every placement once after.
func (c *Controller) isSynced() bool {
	c.syncMu.RLock()
	defer c.syncMu.RUnlock()
	return c.synced
}
