package agent

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/corral-dev/corral/addons/report"
	"github.com/corral-dev/corral/properties/api"
)

// Interval is how often the agent collects now.
func (a *Agent) Interval() time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.interval
}

// followSettings keeps the interval at the hub's settings until ctx ends:
// it watches the ConfigMap api.ConfigName in the cluster namespace (by
// name: the one ConfigMap there the addon's hub identity may list and
// watch), so a change applies without a restart and costs the hub no
// read per round. No ConfigMap means the defaults; one that cannot be
// read, or holds settings out of bounds, is logged and the interval kept.
func (a *Agent) followSettings(ctx context.Context) {
	byName := fields.OneTermEqualSelector("metadata.name", api.ConfigName).String()
	configMaps := a.hub.CoreV1().ConfigMaps(a.opts.ClusterName)
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
		}, a.hub),
		ObjectType: &corev1.ConfigMap{},
		Handler: cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { a.applySettings(ctx, obj) },
			UpdateFunc: func(_, obj any) { a.applySettings(ctx, obj) },
			DeleteFunc: func(any) { a.setInterval(ctx, api.DefaultCollectInterval) },
		},
	})
	informer.RunWithContext(ctx)
}

// applySettings follows the settings obj holds, if they can be read and
// are within bounds.
func (a *Agent) applySettings(ctx context.Context, obj any) {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok || cm.Name != api.ConfigName {
		return
	}
	var s api.Settings
	err := report.Decode(cm, &s)
	if err == nil {
		err = s.Validate()
	}
	if err != nil {
		ctrl.LoggerFrom(ctx).V(1).Info("Ignoring unreadable properties settings; keeping the interval", "interval", a.Interval(), "err", err)
		return
	}
	a.setInterval(ctx, s.CollectInterval.Duration)
}

// setInterval makes d the interval and wakes the wait under way.
func (a *Agent) setInterval(ctx context.Context, d time.Duration) {
	a.mu.Lock()
	old := a.interval
	a.interval = d
	a.mu.Unlock()
	if old == d {
		return
	}
	ctrl.LoggerFrom(ctx).V(1).Info("Following the hub's collection interval", "from", old, "to", d)
	select {
	case a.changed <- struct{}{}:
	default:
	}
}
