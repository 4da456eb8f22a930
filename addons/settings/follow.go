package settings

import (
	"context"
	"reflect"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/corral-dev/corral/addons/configmapchannel"
)

// Follower is the agent side of an addon's settings, of type T: it keeps
// them at those the hub half resolved into the settings ConfigMap in the
// cluster namespace (Follow watches it, by name), so a change applies
// without a restart and costs the hub no read per round, and it waits
// the agent's interval (Wait) so that a new interval applies to the
// wait under way.
type Follower[T any] struct {
	hub             kubernetes.Interface
	namespace, name string
	defaults        T
	validate        func(T) error
	clock           clock.Clock

	// mu guards current: the settings now.
	mu      sync.Mutex
	current T
	// changed is signalled when the settings change, so that the wait
	// under way follows at once.
	changed chan struct{}
	// synced is closed once Follow has read the settings a first time.
	synced chan struct{}
}

// NewFollower follows the settings in the ConfigMap namespace/name
// through hub, an addon agent's hub identity (get, list and watch of
// that ConfigMap only), starting from defaults, which stand while there
// is no ConfigMap. Settings read back are followed only when validate
// passes them. clk is Wait's clock.
func NewFollower[T any](hub kubernetes.Interface, namespace, name string, defaults T, validate func(T) error, clk clock.Clock) *Follower[T] {
	return &Follower[T]{hub: hub, namespace: namespace, name: name, defaults: defaults, validate: validate, clock: clk, current: defaults, changed: make(chan struct{}, 1), synced: make(chan struct{})}
}

// Current are the settings now.
func (f *Follower[T]) Current() T {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.current
}

// SyncWithin bounds how long an agent's first round waits for its
// settings: a hub it cannot read them from (down, or its rules not yet
// given) leaves it the defaults until Follow reads them, not idle.
const SyncWithin = 30 * time.Second

// WaitSynced waits until Follow has read the settings a first time (or
// found there are none), at most within (real time), and says whether ctx
// is still on: an agent's first round waits for it, so that it runs with
// the hub's settings, not the defaults.
func (f *Follower[T]) WaitSynced(ctx context.Context, within time.Duration) bool {
	timer := time.NewTimer(within)
	defer timer.Stop()
	select {
	case <-f.synced:
		return true
	case <-ctx.Done():
		return false
	case <-timer.C:
		ctrl.LoggerFrom(ctx).Info("Could not read the addon's settings from the hub yet; starting with the defaults", "configMap", klog.KRef(f.namespace, f.name), "waited", within)
		return ctx.Err() == nil
	}
}

// Follow keeps the settings at the ConfigMap's until ctx ends: it watches
// the ConfigMap by name (the one in the namespace the agent may list and
// watch). No ConfigMap means the defaults; one that cannot be read, or
// holds settings validate refuses, is logged and the settings kept. Call
// it once.
func (f *Follower[T]) Follow(ctx context.Context) {
	byName := fields.OneTermEqualSelector("metadata.name", f.name).String()
	configMaps := f.hub.CoreV1().ConfigMaps(f.namespace)
	_, informer := cache.NewInformerWithOptions(cache.InformerOptions{
		// The wrapper tells the reflector whether the client can stream a
		// watch list, as generated informers do (a fake one cannot).
		ListerWatcher: cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
			ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
				opts.FieldSelector = byName
				return configMaps.List(ctx, opts)
			},
			WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
				opts.FieldSelector = byName
				return configMaps.Watch(ctx, opts)
			},
		}, f.hub),
		ObjectType: &corev1.ConfigMap{},
		Handler: cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { f.apply(ctx, obj) },
			UpdateFunc: func(_, obj any) { f.apply(ctx, obj) },
			DeleteFunc: func(any) { f.set(ctx, f.defaults) },
		},
	})
	go func() {
		if cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
			close(f.synced)
		}
	}()
	informer.RunWithContext(ctx)
}

// apply follows the settings obj holds, if they can be read and validate
// passes them.
func (f *Follower[T]) apply(ctx context.Context, obj any) {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok || cm.Name != f.name {
		return
	}
	var s T
	err := configmapchannel.Decode(cm, &s)
	if err == nil {
		err = f.validate(s)
	}
	if err != nil {
		ctrl.LoggerFrom(ctx).V(1).Info("Ignoring unreadable settings; keeping the last valid ones", "configMap", klog.KObj(cm), "settings", f.Current(), "err", err)
		return
	}
	f.set(ctx, s)
}

// set makes s the settings and wakes the wait under way when they
// changed.
func (f *Follower[T]) set(ctx context.Context, s T) {
	f.mu.Lock()
	old := f.current
	f.current = s
	f.mu.Unlock()
	if reflect.DeepEqual(old, s) {
		return
	}
	ctrl.LoggerFrom(ctx).V(1).Info("Following the hub's settings", "configMap", klog.KRef(f.namespace, f.name), "from", old, "to", s)
	select {
	case f.changed <- struct{}{}:
	default:
	}
}

// Wait waits one interval — interval of the current settings, with up to
// jitter of it more — and says whether ctx is still on. When the
// settings change meanwhile it waits their interval instead, counted
// from the same start: a shorter interval applies at once, not after the
// longer wait. One wait at a time: a change wakes one.
func (f *Follower[T]) Wait(ctx context.Context, interval func(T) time.Duration, jitter float64) bool {
	start := f.clock.Now()
	for {
		left := wait.Jitter(interval(f.Current()), jitter) - f.clock.Since(start)
		if left <= 0 {
			return ctx.Err() == nil
		}
		timer := f.clock.NewTimer(left)
		select {
		case <-ctx.Done():
			timer.Stop()
			return false
		case <-timer.C():
			return true
		case <-f.changed:
			timer.Stop()
		}
	}
}
