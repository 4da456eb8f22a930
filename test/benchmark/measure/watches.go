package measure

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// Watcher lists and watches one kind, as an informer of a component
// would: a typed, dynamic or metadata client's resource (ListWatch), and
// the label selector the component's cache has for it, if any.
type Watcher struct {
	List     func(context.Context, metav1.ListOptions) (runtime.Object, error)
	Watch    func(context.Context, metav1.ListOptions) (watch.Interface, error)
	Selector string
}

// ListWatch makes a client's List and Watch of one kind a Watcher.
func ListWatch[L runtime.Object](list func(context.Context, metav1.ListOptions) (L, error),
	w func(context.Context, metav1.ListOptions) (watch.Interface, error)) Watcher {
	return Watcher{
		List:  func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) { return list(ctx, o) },
		Watch: w,
	}
}

// HoldWatches holds, until tb ends, a watch of each watcher's kind from
// now on, every event read and decoded and nothing more: what a
// component's informers cost the API server and the component, without
// the component. A floor holding the watches of the component's run
// says what watching alone costs. A watch the API server drops (its
// reader fell behind) is started again where it was; one it ends with an
// error (where it was is too old), from now.
func HoldWatches(ctx context.Context, tb testing.TB, watchers ...Watcher) {
	ctx, cancel := context.WithCancel(ctx)
	tb.Cleanup(cancel)
	for _, w := range watchers {
		rv, err := w.now(ctx)
		if err != nil {
			tb.Fatal(err)
		}
		go func() {
			for ctx.Err() == nil {
				events, err := w.Watch(ctx, metav1.ListOptions{LabelSelector: w.Selector, ResourceVersion: rv})
				if err != nil {
					return
				}
				for ev := range events.ResultChan() {
					if ev.Type == watch.Error {
						events.Stop()
						if rv, err = w.now(ctx); err != nil {
							return
						}
						break
					}
					if o, err := meta.Accessor(ev.Object); err == nil {
						rv = o.GetResourceVersion()
					}
				}
			}
		}()
	}
}

// now is the resourceVersion of the watcher's kind now: a watch from it
// sends what changes from now on, nothing that was.
func (w Watcher) now(ctx context.Context) (string, error) {
	list, err := w.List(ctx, metav1.ListOptions{LabelSelector: w.Selector, Limit: 1})
	if err != nil {
		return "", err
	}
	return meta.NewAccessor().ResourceVersion(list)
}
