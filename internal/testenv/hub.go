package testenv

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"k8s.io/client-go/rest"

	"github.com/corral-dev/corral/addons"
	corralhub "github.com/corral-dev/corral/hub"
)

// HubStartTimeout bounds how long StartHub waits for the hub's webhooks.
const HubStartTimeout = 2 * time.Minute

// HubOptions are `corral hub`'s options for a suite's hub at cfg running
// builtins (none: the registration core alone), as an in-process hub runs
// (hub.NewInProcessOptions). A suite narrows them further before
// StartHub.
func HubOptions(cfg *rest.Config, builtins ...addons.Addon) *corralhub.Options {
	return corralhub.NewInProcessOptions(cfg, builtins...)
}

// StartHub runs the hub as `corral hub` does (the hub run mode) with o in
// this process, on a child of ctx and with its logger, and returns once it
// is set up and, when it serves webhooks, once the API server calls them. stop cancels it and
// waits up to timeout for it to return; suites call it in their cleanup.
func StartHub(ctx context.Context, o *corralhub.Options) (stop func(timeout time.Duration) error, err error) {
	mgr, err := o.Manager(ctx)
	if err != nil {
		return nil, err
	}
	stop = Go(ctx, mgr.Start)
	err = o.WaitServing(ctx, HubStartTimeout)
	if err != nil {
		if stopErr := stop(HubStartTimeout); stopErr != nil {
			return nil, fmt.Errorf("%w (and stopping it: %w)", err, stopErr)
		}
		return nil, err
	}
	return stop, nil
}

// nameCounter numbers the names UniqueName gives, across a suite.
var nameCounter atomic.Int64

// UniqueName is prefix with a number no other name of this process has:
// one spec's namespace, cluster or object, never another's.
func UniqueName(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, nameCounter.Add(1))
}

// AddonHubOptions are HubOptions for a suite that tests the hub half of
// the built-in addon a: the addon manager with that addon, and no
// registration controllers or webhooks (the suite plays the registration
// core).
func AddonHubOptions(cfg *rest.Config, a addons.Addon) *corralhub.Options {
	o := HubOptions(cfg, a)
	o.RegistrationControllers, o.Webhook.Port = []string{}, 0
	return o
}
