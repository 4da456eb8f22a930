package propagation_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/aggregate"
	"github.com/corral-dev/corral/propagation/hub/distribute"
	"github.com/corral-dev/corral/propagation/hub/revision"
	"github.com/corral-dev/corral/propagation/hub/selector"
	"github.com/corral-dev/corral/propagation/hub/status"
	"github.com/corral-dev/corral/test/benchmark/measure"
)

// floorWorkers are the writer counts the floor is measured at by default
// ($FLOOR_WORKERS lists others).
var floorWorkers = []int{1, 4, 16, 32, 64}

// floor is the fastest floor of each phase measured in this run, by
// propagation count, with its writer count: what BenchmarkPropagate
// compares with.
type floor struct {
	create, edit               time.Duration
	createWorkers, editWorkers int
}

var floors = map[int]*floor{}

// BenchmarkPropagateFloor is what BenchmarkPropagate cannot beat on this
// machine: the same workload, watched and reported on by the same
// simulated agent, but instead of the hub a bare client makes only the
// writes the outcome needs, with the hub's own pure pieces
// (revision.Clean, Hash, Manifests; status.ManifestConfigs;
// aggregate.Status): for each Propagation created, its revision and its
// 10 ManifestWorks; once the agent reported all 10, the Propagation's
// status and the template's aggregated status; for each template edited,
// its new revision and the 10 works' update, then the two
// status writes again. It reads only the benchmark's cache, and its
// writes are one each, in any order, by as many writers as the
// sub-benchmark says (1, 4, 16, 32 and 64, or $FLOOR_WORKERS): the API
// server's cost per write falls as more are in flight, so the floor is the
// fastest of them, logged with its count.
func BenchmarkPropagateFloor(b *testing.B) {
	byCount(b, func(b *testing.B, n int) {
		for _, workers := range measure.FloorSweep(floorWorkers...) {
			b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
				fw := newFloorWriter(workers, n)
				create, edit := run(b, n, fmt.Sprintf("floor-%d", workers), fw)
				fw.finish(b)
				logPhases(b, n, fmt.Sprintf("floor, %d writers", workers), create, edit)
				best := floors[n]
				if best == nil {
					best = &floor{}
					floors[n] = best
				}
				if best.create == 0 || create.done < best.create {
					best.create, best.createWorkers = create.done, workers
				}
				if best.edit == 0 || edit.done < best.edit {
					best.edit, best.editWorkers = edit.done, workers
				}
				b.Logf("fastest floor so far: writing %.2fs at %d writers, editing %.2fs at %d writers",
					best.create.Seconds(), best.createWorkers, best.edit.Seconds(), best.editWorkers)
			})
		}
	})
}

// floorWriter is the floor's bare client: a queue of single writes and
// its writers.
type floorWriter struct {
	workers int
	f       *fixture
	tasks   chan func(context.Context) error
	wg      sync.WaitGroup
	failed  chan struct{}

	mu        sync.Mutex
	err       error
	props     map[string]*v1alpha1.Propagation
	templates map[string]*appsv1.Deployment
}

func newFloorWriter(workers, n int) *floorWriter {
	// Per propagation and phase: a revision, 10 works and 2 status writes.
	return &floorWriter{workers: workers, tasks: make(chan func(context.Context) error, 2*n*(clusters+3)), failed: make(chan struct{}),
		props: map[string]*v1alpha1.Propagation{}, templates: map[string]*appsv1.Deployment{}}
}

func (fw *floorWriter) hooks() *hooks { return &hooks{reported: fw.reported} }

func (fw *floorWriter) start(ctx context.Context, _ *testing.B, f *fixture) {
	fw.f = f
	for range fw.workers {
		fw.wg.Go(func() {
			for task := range fw.tasks {
				if err := task(ctx); err != nil {
					fw.fail(err)
				}
			}
		})
	}
}

func (fw *floorWriter) fail(err error) {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if fw.err == nil {
		fw.err = err
		close(fw.failed)
	}
}

// finish stops the writers, failing the benchmark if a write failed.
func (fw *floorWriter) finish(b *testing.B) {
	close(fw.tasks)
	fw.wg.Wait()
	must(b, fw.err)
}

func (*floorWriter) pids() map[string]int                             { return nil }
func (fw *floorWriter) stopped() <-chan struct{}                      { return fw.failed }
func (*floorWriter) profile(*testing.B, string, time.Duration) func() { return func() {} }

// created queues the propagation's revision 1 and works, of its template
// as the benchmark's cache holds it (as the hub's would).
func (fw *floorWriter) created(p *v1alpha1.Propagation) {
	d := &appsv1.Deployment{}
	if err := fw.f.watch.cache.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: p.Name}, d); err != nil {
		fw.fail(err)
		return
	}
	fw.mu.Lock()
	fw.props[p.Name], fw.templates[p.Name] = p, d
	fw.mu.Unlock()
	fw.queueSpec(p, d, 1)
}

// edited queues the propagation's revision 2 and works' update, of the
// template as the edit returned it.
func (fw *floorWriter) edited(d *appsv1.Deployment) {
	fw.mu.Lock()
	p := fw.props[d.Name]
	fw.templates[d.Name] = d
	fw.mu.Unlock()
	fw.queueSpec(p, d, 2)
}

// reported queues the propagation's and its template's status writes.
func (fw *floorWriter) reported(name string, rev int64) {
	fw.mu.Lock()
	p, d := fw.props[name], fw.templates[name]
	fw.mu.Unlock()
	fw.tasks <- func(ctx context.Context) error { return fw.writePropagationStatus(ctx, p, rev) }
	fw.tasks <- func(ctx context.Context) error { return fw.writeTemplateStatus(ctx, d) }
}

// queueSpec queues revision rev of template d and its works' writes.
func (fw *floorWriter) queueSpec(p *v1alpha1.Propagation, d *appsv1.Deployment, rev int64) {
	manifests, hash, err := revisionFrom(d)
	if err != nil {
		fw.fail(err)
		return
	}
	fw.tasks <- func(ctx context.Context) error { return fw.createRevision(ctx, p, rev, hash, manifests) }
	for i := range clusters {
		fw.tasks <- func(ctx context.Context) error { return fw.writeWork(ctx, p, clusterName(i), rev, manifests) }
	}
}

// revisionFrom is what the selector makes of a template: its cleaned
// manifests and their hash.
func revisionFrom(d *appsv1.Deployment) ([]workv1.Manifest, string, error) {
	raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(d)
	if err != nil {
		return nil, "", err
	}
	obj := &unstructured.Unstructured{Object: raw}
	obj.SetGroupVersionKind(appsv1.SchemeGroupVersion.WithKind("Deployment"))
	revision.Clean(obj)
	objs := []*unstructured.Unstructured{obj}
	revision.Sort(objs)
	hash, err := revision.Hash(objs)
	if err != nil {
		return nil, "", err
	}
	manifests, err := revision.Manifests(objs)
	return manifests, hash, err
}

func (fw *floorWriter) createRevision(ctx context.Context, p *v1alpha1.Propagation, rev int64, hash string, manifests []workv1.Manifest) error {
	r := &v1alpha1.PropagationRevision{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: selector.RevisionName(p.Name, rev),
			Labels: map[string]string{v1alpha1.LabelPropagation: p.Name, v1alpha1.LabelRevision: revisionLabel(rev)}},
		Spec: v1alpha1.RevisionSpec{Revision: rev, Hash: hash, Objects: manifests},
	}
	if err := controllerutil.SetControllerReference(p, r, fw.f.c.Scheme()); err != nil {
		return err
	}
	return fw.f.c.Create(ctx, r)
}

// writeWork creates the propagation's work on cluster (revision 1) or
// updates it to rev.
func (fw *floorWriter) writeWork(ctx context.Context, p *v1alpha1.Propagation, cluster string, rev int64, manifests []workv1.Manifest) error {
	name := distribute.WorkName(namespace, p.Name, 0)
	now := time.Now().UTC().Format(time.RFC3339)
	if rev == 1 {
		return fw.f.c.Create(ctx, &workv1.ManifestWork{
			ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: name,
				Labels: map[string]string{v1alpha1.LabelPropagation: p.Name, v1alpha1.LabelPropagationNamespace: namespace,
					v1alpha1.LabelRevision: revisionLabel(rev)},
				Annotations: map[string]string{distribute.RolloutTimeAnnotation: now}},
			Spec: workv1.ManifestWorkSpec{Workload: workv1.ManifestsTemplate{Manifests: manifests},
				ManifestConfigs: status.ManifestConfigs(manifests)},
		})
	}
	// An update of the work as the benchmark's cache holds it, as the hub
	// makes it: a merge patch of the same change cost the API server more
	// CPU per write.
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		w := &workv1.ManifestWork{}
		if err := fw.f.watch.cache.Get(ctx, client.ObjectKey{Namespace: cluster, Name: name}, w); err != nil {
			return err
		}
		w.Labels[v1alpha1.LabelRevision] = revisionLabel(rev)
		w.Annotations[distribute.RolloutTimeAnnotation] = now
		w.Spec.Workload.Manifests = manifests
		return fw.f.c.Update(ctx, w)
	})
}

// writePropagationStatus writes the status the hub's controllers end
// with: selected, delivered and applied and available on every cluster.
func (fw *floorWriter) writePropagationStatus(ctx context.Context, p *v1alpha1.Propagation, rev int64) error {
	now := metav1.Now()
	cond := func(t, reason string, s metav1.ConditionStatus, msg string) metav1.Condition {
		return metav1.Condition{Type: t, Status: s, Reason: reason, Message: msg, ObservedGeneration: p.Generation, LastTransitionTime: now}
	}
	st := v1alpha1.PropagationStatus{
		ObservedGeneration: p.Generation,
		Conditions: []metav1.Condition{
			cond(v1alpha1.ConditionSelected, selector.ReasonSelected, metav1.ConditionTrue, "1 object selected"),
			cond(v1alpha1.ConditionScheduled, distribute.ReasonScheduled, metav1.ConditionTrue, fmt.Sprintf("revision %d to %d clusters selected by %s/%s", rev, clusters, namespace, placement)),
			cond(v1alpha1.ConditionApplied, distribute.ReasonApplied, metav1.ConditionTrue, fmt.Sprintf("all %d clusters applied revision %d", clusters, rev)),
			cond(v1alpha1.ConditionAvailable, distribute.ReasonAvailable, metav1.ConditionTrue, fmt.Sprintf("revision %d is available on all %d clusters", rev, clusters)),
		},
		CurrentRevision:   rev,
		DeliveredRevision: rev,
		Objects:           []v1alpha1.ObjectReference{{Group: "apps", Version: "v1", Kind: "Deployment", Namespace: namespace, Name: p.Name}},
		Summary:           v1alpha1.PropagationSummary{Total: clusters, Applied: clusters, Available: clusters},
	}
	for i := range clusters {
		st.Clusters = append(st.Clusters, v1alpha1.ClusterStatus{Cluster: clusterName(i), Revision: rev, Conditions: []metav1.Condition{
			cond(v1alpha1.ConditionScheduled, distribute.ReasonDelivered, metav1.ConditionTrue, fmt.Sprintf("revision %d in 1 ManifestWorks", rev)),
			cond(v1alpha1.ConditionApplied, distribute.ReasonApplied, metav1.ConditionTrue, "Applied on all 1 ManifestWorks"),
			cond(v1alpha1.ConditionAvailable, distribute.ReasonAvailable, metav1.ConditionTrue, "Available on all 1 ManifestWorks"),
			cond(v1alpha1.ConditionFailed, distribute.ReasonNoFailure, metav1.ConditionFalse, "no ManifestWork failed"),
		}})
	}
	patch, err := json.Marshal(map[string]any{"status": st})
	if err != nil {
		return err
	}
	target := &v1alpha1.Propagation{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: p.Name}}
	return fw.f.c.Status().Patch(ctx, target, client.RawPatch(types.MergePatchType, patch))
}

// writeTemplateStatus writes the template's status aggregated from its
// works' feedback in the benchmark's cache.
func (fw *floorWriter) writeTemplateStatus(ctx context.Context, d *appsv1.Deployment) error {
	members := map[string]aggregate.Member{}
	for i := range clusters {
		w := &workv1.ManifestWork{}
		key := client.ObjectKey{Namespace: clusterName(i), Name: distribute.WorkName(namespace, d.Name, 0)}
		if err := fw.f.watch.cache.Get(ctx, key, w); err != nil {
			return err
		}
		for _, mc := range w.Status.ResourceStatus.Manifests {
			m, err := aggregate.NewMember(mc.StatusFeedbacks, 0)
			if err != nil {
				return err
			}
			members[key.Namespace] = m
		}
	}
	raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(d)
	if err != nil {
		return err
	}
	tmpl := &unstructured.Unstructured{Object: raw}
	tmpl.SetGroupVersionKind(appsv1.SchemeGroupVersion.WithKind("Deployment"))
	want, err := aggregate.Status(tmpl, members)
	if err != nil {
		return err
	}
	patch, err := json.Marshal(map[string]any{"status": want})
	if err != nil {
		return err
	}
	target := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: d.Name}}
	return fw.f.c.Status().Patch(ctx, target, client.RawPatch(types.MergePatchType, patch))
}
