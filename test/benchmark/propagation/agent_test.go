package propagation_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/dev/simulate"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// agentWorkers is how many works the simulated agent reports at once: the
// ten clusters' agents together.
const agentWorkers = 32

// agent is the simulated work agent of every cluster: a bare client that
// reports each propagation's ManifestWork applied and available at its
// generation, with each Deployment's status fed back as its feedback
// rules ask (its replicas all ready, updated and available, its
// generation observed), one status write per work and generation. It
// reads the works from the benchmark's cache and applies nothing.
type agent struct {
	c      client.Client
	reader client.Reader
	queue  workqueue.TypedRateLimitingInterface[types.NamespacedName]
}

func newAgent(c client.Client, reader client.Reader) *agent {
	limiter := workqueue.NewTypedItemExponentialFailureRateLimiter[types.NamespacedName](5*time.Millisecond, time.Second)
	return &agent{c: c, reader: reader, queue: workqueue.NewTypedRateLimitingQueue(limiter)}
}

// onWork queues a work the agent has not reported at its generation.
func (a *agent) onWork(w *workv1.ManifestWork) {
	if !appliedAtGeneration(w) && w.DeletionTimestamp.IsZero() {
		a.queue.Add(types.NamespacedName{Namespace: w.Namespace, Name: w.Name})
	}
}

func appliedAtGeneration(w *workv1.ManifestWork) bool {
	c := meta.FindStatusCondition(w.Status.Conditions, workv1.WorkApplied)
	return c != nil && c.ObservedGeneration == w.Generation
}

// start runs the agent's workers until the benchmark ends.
func (a *agent) start(ctx context.Context, b *testing.B) {
	b.Cleanup(a.queue.ShutDown)
	for range agentWorkers {
		go func() {
			for a.next(ctx) {
			}
		}()
	}
}

func (a *agent) next(ctx context.Context) bool {
	key, shutdown := a.queue.Get()
	if shutdown {
		return false
	}
	defer a.queue.Done(key)
	if err := a.report(ctx, key); err != nil {
		a.queue.AddRateLimited(key)
		return true
	}
	a.queue.Forget(key)
	return true
}

// report writes the work's status: applied, available, and the
// Deployment's feedback. A conflict is tried again from the cache.
func (a *agent) report(ctx context.Context, key types.NamespacedName) error {
	w := &workv1.ManifestWork{}
	if err := a.reader.Get(ctx, key, w); err != nil {
		return client.IgnoreNotFound(err)
	}
	if appliedAtGeneration(w) || !w.DeletionTimestamp.IsZero() {
		return nil
	}
	st, err := simulate.WorkStatus(w)
	if err != nil {
		return err
	}
	w.Status = st
	if err := a.c.Status().Update(ctx, w); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}

// revisionOf is the revision a work's label names, 0 for none.
func revisionOf(w *workv1.ManifestWork) int64 {
	n, _ := strconv.ParseInt(w.Labels[v1alpha1.LabelRevision], 10, 64)
	return n
}

func revisionLabel(n int64) string { return strconv.FormatInt(n, 10) }
