package host

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	addonclient "open-cluster-management.io/api/client/addon/clientset/versioned"
	addoninformers "open-cluster-management.io/api/client/addon/informers/externalversions"
	addonlisters "open-cluster-management.io/api/client/addon/listers/addon/v1beta1"

	"github.com/corral-dev/corral/addons"
)

// Defaults, as OCM's agent has them.
const (
	// DefaultInstallNamespace is where an addon lives on the managed
	// cluster when its ManagedClusterAddOn names no namespace.
	DefaultInstallNamespace = "open-cluster-management-agent-addon"
	// DefaultLeaseDurationSeconds is how often an addon renews its lease;
	// it is Unavailable after LeaseGraceTimes that without a renewal.
	DefaultLeaseDurationSeconds = 60
	// LeaseGraceTimes is how many lease periods may pass without a renewal.
	LeaseGraceTimes = 5
)

// Options configure a host.
type Options struct {
	// ClusterName is the managed cluster's name on the hub: the namespace
	// its ManagedClusterAddOns live in.
	ClusterName string
	// AgentName goes into an addon's default certificate subject
	// (…:addon:<addon>:agent:<AgentName>), as OCM's agent id does.
	AgentName string
	// Hub reaches the hub as the registration agent's identity: it lists
	// and watches the ManagedClusterAddOns, writes their status, creates
	// the addons' CSRs.
	Hub *rest.Config
	// Managed reaches the managed cluster, where the addons' Secrets and
	// leases are.
	Managed *rest.Config
	// Addons are the built-in addons whose agent halves run in-process.
	Addons []addons.Addon
	// ResyncInterval is how often every addon is looked at again (its
	// lease, its Secrets). Default 30s.
	ResyncInterval time.Duration
	// LeaseDurationSeconds is the addons' lease period. Default 60.
	LeaseDurationSeconds int32
	// ExpirationSeconds, when set, is the certificate lifetime asked for in
	// every CSR; otherwise the signer's default.
	ExpirationSeconds int32
	// PollInterval is how often a pending CSR is looked at. Default 1s.
	PollInterval time.Duration
	// Restart is the backoff between restarts of a crashed agent.
	Restart wait.Backoff
	// StableAfter is how long a restarted agent must run to be reported
	// running again (Degraded False) and to reset the backoff. Default 1m.
	StableAfter time.Duration
	// Clock is injected for tests.
	Clock clock.WithTicker
}

func (o *Options) complete() error {
	if o.ClusterName == "" {
		return errors.New("the addon host needs the cluster's name")
	}
	if o.Hub == nil || o.Managed == nil {
		return errors.New("the addon host needs a hub and a managed cluster configuration")
	}
	for _, a := range o.Addons {
		if err := a.Validate(); err != nil {
			return err
		}
	}
	if o.AgentName == "" {
		o.AgentName = "agent"
	}
	if o.ResyncInterval <= 0 {
		o.ResyncInterval = 30 * time.Second
	}
	if o.LeaseDurationSeconds <= 0 {
		o.LeaseDurationSeconds = DefaultLeaseDurationSeconds
	}
	if o.PollInterval <= 0 {
		o.PollInterval = time.Second
	}
	if o.Restart.Duration <= 0 {
		o.Restart = wait.Backoff{Duration: time.Second, Factor: 2, Jitter: 0.1, Steps: 1 << 30, Cap: 5 * time.Minute}
	}
	if o.StableAfter <= 0 {
		o.StableAfter = time.Minute
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	return nil
}

// Host runs the addon half of one managed cluster's agent.
type Host struct {
	opts     Options
	hubKube  kubernetes.Interface
	hubAddon addonclient.Interface
	managed  kubernetes.Interface
	builtins map[string]addons.Addon

	lister addonlisters.ManagedClusterAddOnNamespaceLister
	queue  workqueue.TypedRateLimitingInterface[string]

	mu     sync.Mutex
	addons map[string]*addonState
}

// New checks opts and returns a host.
func New(opts Options) (*Host, error) {
	if err := opts.complete(); err != nil {
		return nil, err
	}
	h := &Host{opts: opts, builtins: map[string]addons.Addon{}, addons: map[string]*addonState{}}
	var err error
	if h.hubKube, err = kubernetes.NewForConfig(opts.Hub); err != nil {
		return nil, err
	}
	if h.hubAddon, err = addonclient.NewForConfig(opts.Hub); err != nil {
		return nil, err
	}
	if h.managed, err = kubernetes.NewForConfig(opts.Managed); err != nil {
		return nil, err
	}
	for _, a := range opts.Addons {
		if a.RunAgent != nil {
			h.builtins[a.Name] = a
		}
	}
	return h, nil
}

func log(ctx context.Context) logr.Logger { return klog.FromContext(ctx) }

func withValues(ctx context.Context, kv ...any) context.Context {
	return klog.NewContext(ctx, log(ctx).WithValues(kv...))
}

// Run watches the cluster's ManagedClusterAddOns and keeps every addon
// served until ctx ends; then it stops the built-in agents and the
// certificate loops, and leaves every Secret in place.
func (h *Host) Run(ctx context.Context) error {
	ctx = klog.NewContext(ctx, log(ctx).WithName("addon-host"))
	factory := addoninformers.NewSharedInformerFactoryWithOptions(h.hubAddon, 10*time.Minute,
		addoninformers.WithNamespace(h.opts.ClusterName))
	informer := factory.Addon().V1beta1().ManagedClusterAddOns()
	h.lister = informer.Lister().ManagedClusterAddOns(h.opts.ClusterName)
	h.queue = workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "addon-host"})
	enqueue := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			if _, name, err := cache.SplitMetaNamespaceKey(key); err == nil {
				h.queue.Add(name)
			}
		}
	}
	if _, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, obj any) { enqueue(obj) }, DeleteFunc: enqueue,
	}); err != nil {
		return err
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	defer h.stopAll(ctx)
	defer h.queue.ShutDown()
	if !cache.WaitForCacheSync(ctx.Done(), informer.Informer().HasSynced) {
		return nil // ctx ended
	}
	log(ctx).Info("Watching the cluster's addons", "cluster", h.opts.ClusterName, "builtins", len(h.builtins))
	go h.resync(ctx)
	go func() {
		<-ctx.Done()
		h.queue.ShutDown()
	}()
	for h.processNext(ctx) {
	}
	return nil
}

// resync looks at every addon, known or listed, every ResyncInterval.
func (h *Host) resync(ctx context.Context) {
	ticker := h.opts.Clock.NewTicker(h.opts.ResyncInterval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C():
		}
		h.enqueueAll()
	}
}

func (h *Host) enqueueAll() {
	if list, err := h.lister.List(labels.Everything()); err == nil {
		for _, mca := range list {
			h.queue.Add(mca.Name)
		}
	}
	h.mu.Lock()
	for name := range h.addons {
		h.queue.Add(name)
	}
	h.mu.Unlock()
}

func (h *Host) processNext(ctx context.Context) bool {
	name, shutdown := h.queue.Get()
	if shutdown {
		return false
	}
	defer h.queue.Done(name)
	if err := h.sync(ctx, name); err != nil {
		if ctx.Err() == nil {
			log(ctx).Info("Syncing the addon failed; retrying", "addon", name, "err", err)
		}
		h.queue.AddRateLimited(name)
		return true
	}
	h.queue.Forget(name)
	return true
}

// sync brings one addon's registrations, agent and availability in line
// with its ManagedClusterAddOn.
func (h *Host) sync(ctx context.Context, name string) error {
	mca, err := h.lister.Get(name)
	if apierrors.IsNotFound(err) {
		return h.remove(ctx, name)
	}
	if err != nil {
		return err
	}
	st := h.state(name)
	if !mca.DeletionTimestamp.IsZero() {
		// Like OCM, keep the credentials while the addon is deleted: its
		// agent may need them to clean up. The built-in agent stops now.
		st.stopAgent(ctx)
		return nil
	}
	if unconverted(mca) {
		// Written back, its registrations would lose what the decode
		// dropped: touch nothing until the hub converts.
		return errorf(name, "reading it", errUnconverted)
	}
	// One status write per sync: once the driver is declared, the update
	// brings the addon back for the rest.
	if declared, err := h.declareDriver(ctx, mca); err != nil || declared {
		return err
	}
	var errs []error
	if err := h.syncRegistrations(ctx, st, mca); err != nil {
		errs = append(errs, err)
	}
	h.syncAgent(ctx, st, mca)
	available, err := h.syncAvailable(ctx, mca)
	switch {
	case err != nil:
		errs = append(errs, err)
	case available:
		st.leaseWait = 0
	case st.leaseWait < h.opts.ResyncInterval:
		h.queue.AddAfter(name, st.nextLeaseCheck(h.opts.ResyncInterval))
	}
	return errors.Join(errs...)
}

// state returns the tracked state of an addon, new when unknown.
func (h *Host) state(name string) *addonState {
	h.mu.Lock()
	defer h.mu.Unlock()
	st, ok := h.addons[name]
	if !ok {
		st = &addonState{name: name, registrations: map[string]*registration{}}
		h.addons[name] = st
	}
	return st
}

// remove stops everything of an addon that is gone and deletes its
// Secrets.
func (h *Host) remove(ctx context.Context, name string) error {
	h.mu.Lock()
	st, ok := h.addons[name]
	h.mu.Unlock()
	if !ok {
		return nil
	}
	st.stopAgent(ctx)
	var errs []error
	for key, r := range st.registrations {
		if err := h.stopRegistration(ctx, r); err != nil {
			errs = append(errs, err)
			continue
		}
		delete(st.registrations, key)
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	h.mu.Lock()
	delete(h.addons, name)
	h.mu.Unlock()
	log(ctx).V(1).Info("The addon is gone: stopped its agent and removed its credentials", "addon", name)
	return nil
}

// stopAll stops every agent and certificate loop, deleting nothing.
func (h *Host) stopAll(ctx context.Context) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, st := range h.addons {
		st.stopAgent(ctx)
		for _, r := range st.registrations {
			r.stop()
		}
	}
}

// addonState is what the host runs for one addon. Only the worker touches
// it, except for the agent, which stopAll also stops.
type addonState struct {
	name          string
	registrations map[string]*registration
	agent         *supervisor
	// leaseWait is how long the host last waited to look at the lease of
	// the addon while it was not available; 0 once it is.
	leaseWait time.Duration
}

// nextLeaseCheck is how long to wait before looking at the lease of an
// addon that is not available: a second at first, doubling (each time the
// host looks, whatever brought it) up to limit, the resync interval, after
// which the resync alone looks. An agent that just started is so reported
// available within seconds, not at the next resync, and one that never
// starts costs no more than the resync does.
func (st *addonState) nextLeaseCheck(limit time.Duration) time.Duration {
	st.leaseWait = min(max(2*st.leaseWait, time.Second), limit)
	return st.leaseWait
}

func (st *addonState) stopAgent(ctx context.Context) {
	if st.agent != nil {
		st.agent.stop()
		log(ctx).Info("Stopped the addon's agent", "addon", st.name)
		st.agent = nil
	}
}

// installNamespace is where the addon lives on the managed cluster: the
// namespace the hub put in its status, else OCM's default.
func installNamespace(mca *addonv1beta1.ManagedClusterAddOn) string {
	if mca.Status.Namespace != "" {
		return mca.Status.Namespace
	}
	if ns := mca.Annotations[addonv1beta1.InstallNamespaceAnnotation]; ns != "" {
		return ns
	}
	return DefaultInstallNamespace
}

// errorf wraps err with what the host was doing for addon.
func errorf(addon, doing string, err error) error {
	return fmt.Errorf("addon %s: %s: %w", addon, doing, err)
}
