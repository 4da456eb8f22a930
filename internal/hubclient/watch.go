package hubclient

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// AddWatchFlag registers -w/--watch, into watch, on a get verb.
func AddWatchFlag(fs *pflag.FlagSet, watch *bool) {
	fs.BoolVarP(watch, "watch", "w", *watch, "after printing, watch for changes and print again after each (Ctrl-C stops)")
}

// Watched is a kind a watching verb prints: a list of it, and where.
type Watched struct {
	List client.ObjectList
	Opts []client.ListOption
	// Optional is a kind the table does without when the user may not
	// read it: it is not watched then, instead of failing the watch.
	Optional bool
}

// settle is how long Watch waits after a change for the rest of its
// burst, so that one reconcile's writes reprint once.
const settle = 200 * time.Millisecond

// Watch calls show, then again after each burst of changes to any of
// kinds, until ctx ends (Ctrl-C): kubectl get -w, for a verb whose table
// joins several kinds. Each kind is listed before the first table and
// watched from that list, so no change after the list is missed; a watch
// the server ends is started again from a fresh list.
func (h *Hub) Watch(ctx context.Context, show func(context.Context) error, kinds ...Watched) error {
	log := klog.FromContext(ctx)
	var follows []func(chan<- struct{}) error
	for _, k := range kinds {
		rv, err := h.listVersion(ctx, k)
		if k.Optional && apierrors.IsForbidden(err) {
			log.V(4).Info("Not watching a kind the user may not read", "kind", fmt.Sprintf("%T", k.List))
			continue
		}
		if err != nil {
			return notAHub(err)
		}
		follows = append(follows, func(changed chan<- struct{}) error { return h.follow(ctx, k, rv, changed) })
	}
	if err := show(ctx); err != nil {
		return err
	}
	changed := make(chan struct{}, 1)
	errs := make(chan error, len(follows))
	for _, f := range follows {
		go func() { errs <- f(changed) }()
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-errs:
			if ctx.Err() != nil {
				return nil //nolint:nilerr // a watch ended by Ctrl-C is not a failure
			}
			return err
		case <-changed:
		}
		// Let the rest of the burst arrive, then print once.
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(settle):
		}
		select {
		case <-changed:
		default:
		}
		if err := show(ctx); err != nil {
			return err
		}
	}
}

// listVersion lists k and returns the list's resource version.
func (h *Hub) listVersion(ctx context.Context, k Watched) (string, error) {
	list := k.List.DeepCopyObject().(client.ObjectList)
	if err := h.Client.List(ctx, list, k.Opts...); err != nil {
		return "", err
	}
	return list.GetResourceVersion(), nil
}

// follow watches k from resource version rv, signalling changed on each
// change; when the server ends the watch it lists again, signals (what
// changed meanwhile shows in that reprint) and watches from that list.
func (h *Hub) follow(ctx context.Context, k Watched, rv string, changed chan<- struct{}) error {
	log := klog.FromContext(ctx)
	for ctx.Err() == nil {
		if rv == "" {
			var err error
			if rv, err = h.listVersion(ctx, k); err != nil {
				return notAHub(err)
			}
			signal(changed)
		}
		opts := append(append([]client.ListOption{}, k.Opts...),
			&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true}})
		w, err := h.Client.Watch(ctx, k.List.DeepCopyObject().(client.ObjectList), opts...)
		if err != nil {
			return notAHub(err)
		}
		if err := drain(ctx, w, changed); err != nil {
			return err
		}
		rv = ""
		log.V(4).Info("Watch ended; listing again", "kind", fmt.Sprintf("%T", k.List))
	}
	return nil
}

// drain signals changed for each event of w until it ends.
func drain(ctx context.Context, w watch.Interface, changed chan<- struct{}) error {
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.ResultChan():
			if !ok {
				return nil
			}
			switch ev.Type {
			case watch.Bookmark:
				continue
			case watch.Error:
				// An expired resource version: list again.
				if status, ok := ev.Object.(*metav1.Status); ok && status.Code == 410 {
					return nil
				}
				return errors.New("watching the hub: " + describe(ev))
			}
			signal(changed)
		}
	}
}

func describe(ev watch.Event) string {
	if status, ok := ev.Object.(*metav1.Status); ok {
		return status.Message
	}
	if o, err := meta.Accessor(ev.Object); err == nil {
		return o.GetName()
	}
	return string(ev.Type)
}

// signal marks changed without blocking: one pending mark is enough.
func signal(changed chan<- struct{}) {
	select {
	case changed <- struct{}{}:
	default:
	}
}
