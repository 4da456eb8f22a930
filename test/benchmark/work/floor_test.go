package work_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/metadata"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/corral-dev/corral/internal/fieldpatch"
	"github.com/corral-dev/corral/test/benchmark/measure"
	"github.com/corral-dev/corral/work/agent/appliedwork"
	"github.com/corral-dev/corral/work/agent/manifestwork"
)

// BenchmarkApplyWorksFloor is what BenchmarkApplyWorks cannot beat on
// this machine: the same writes per work the agent makes (the hub's
// finalizer patch and status update; the managed cluster's AppliedManifestWork,
// ConfigMap, Secret and AppliedManifestWork status), made by a bare client
// that reads one list, decides nothing and watches nothing, on fresh
// control planes, at each writer count of the sweep (1, 4, 8, 16, 32 and
// 64, or $FLOOR_WORKERS), and then holding the agent's watches
// (watchLikeTheAgent): measure.SweepFloors. The API servers' cost per
// write falls as more are in flight, so the floor is the fastest of them,
// the true floor, logged with its count and, when BenchmarkApplyWorks ran
// before it in this run, with the agent's time as a multiple of it and
// the CPU of both runs per work (measure.Versus); the watching floor
// likewise.
func BenchmarkApplyWorksFloor(b *testing.B) {
	measure.SweepFloors(b, applyFloor, func(b *testing.B, name string, f, trueFloor measure.Floor) {
		if agentRun.Elapsed > 0 {
			b.Log(measure.Versus("agent", agentRun, name, f.Run, f.Workers, works(), "work"))
			if name == measure.WatchingFloor {
				b.Log(measure.StartBound("agent", agentRun, trueFloor, f))
			}
		}
	})
}

// applyFloor makes the agent's writes for every work with workers
// writers, and says how long they took and the CPU every process used
// meanwhile. Nothing watches unless watching: the true floor is the
// writes alone. (The watch the agent is timed by, beside a bare writer,
// costs the API server far more than beside the agent, whose informer
// shares the encoding of each event, and is dropped when it falls
// behind: it added 1.1s to a 7.7s floor.)
func applyFloor(b *testing.B, workers int, watching bool) measure.Run {
	ctx := b.Context()
	hub, managed, n := startWithWorks(ctx, b)
	if watching {
		watchLikeTheAgent(ctx, b, hub, managed)
	}
	b.ResetTimer()
	hubBefore, managedBefore := hub.requests(ctx), managed.requests(ctx)
	cpu := measure.NewCPUMeter(processes(hub, managed, nil))
	profile := fmt.Sprintf("floor-%d-%d", n, workers)
	if watching {
		profile += "-watching"
	}
	defer profileAPIServers(ctx, b, hub, managed, profile)()
	began := time.Now()
	// The agent reads the works from its informer's list.
	list, err := hub.works.WorkV1().ManifestWorks(cluster).List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		b.Fatal(err)
	}
	err = measure.Parallel(workers, n, func(i int) error {
		return writeLikeTheAgent(ctx, hub, managed, &list.Items[i])
	})
	if err != nil {
		b.Fatal(err)
	}
	elapsed := time.Since(began)
	b.StopTimer()
	used := cpu.Used()
	b.ReportMetric(elapsed.Seconds(), "s/all-written")
	b.Logf("the writes of %d works made in %.2fs by a bare client at %d writers; load %s", n, elapsed.Seconds(), workers, measure.Load())
	b.Logf("CPU: %s", measure.FormatSeconds(used))
	for _, line := range requestsSince(ctx, hub, managed, hubBefore, managedBefore, n) {
		b.Log(line)
	}
	return measure.Run{Elapsed: elapsed, CPU: used}
}

// watchLikeTheAgent holds, until b ends, the watches the agent's run
// has (measure.HoldWatches): two of the cluster namespace's ManifestWorks
// (the agent's and the benchmark's), and on the managed cluster the
// AppliedManifestWorks and the metadata of ConfigMaps and Secrets (the
// kinds the works apply).
func watchLikeTheAgent(ctx context.Context, b *testing.B, hub, managed *controlPlane) {
	meta := metadata.NewForConfigOrDie(managed.Admin)
	works, applied := hub.works.WorkV1().ManifestWorks(cluster), managed.works.WorkV1().AppliedManifestWorks()
	configMaps := meta.Resource(corev1.SchemeGroupVersion.WithResource("configmaps"))
	secrets := meta.Resource(corev1.SchemeGroupVersion.WithResource("secrets"))
	measure.HoldWatches(ctx, b,
		measure.ListWatch(works.List, works.Watch), measure.ListWatch(works.List, works.Watch),
		measure.ListWatch(applied.List, applied.Watch),
		measure.ListWatch(configMaps.List, configMaps.Watch), measure.ListWatch(secrets.List, secrets.Watch))
}

// writeLikeTheAgent makes the six writes the agent makes for work w,
// with objects of the same shape: patches and updates where the agent
// patches and updates.
func writeLikeTheAgent(ctx context.Context, hub, managed *controlPlane, w *workv1.ManifestWork) error {
	works := hub.works.WorkV1().ManifestWorks(cluster)
	name := w.Name
	// The agent's patch: the finalizers, guarded on themselves.
	patch, err := fieldpatch.Set("/metadata/finalizers", w.Finalizers, []string{workv1.ManifestWorkFinalizer})
	if err != nil {
		return err
	}
	finalizer, err := patch.Data(w)
	if err != nil {
		return err
	}
	w, err = works.Patch(ctx, name, types.JSONPatchType, finalizer, metav1.PatchOptions{})
	if err != nil {
		return err
	}
	amw, err := managed.works.WorkV1().AppliedManifestWorks().Create(ctx, &workv1.AppliedManifestWork{
		ObjectMeta: metav1.ObjectMeta{Name: appliedwork.Name("floor", name), Finalizers: []string{workv1.AppliedManifestWorkFinalizer}},
		Spec:       workv1.AppliedManifestWorkSpec{HubHash: "floor", AgentID: "floor", ManifestWorkName: name},
	}, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	owner := []metav1.OwnerReference{{APIVersion: workv1.GroupVersion.String(), Kind: "AppliedManifestWork", Name: amw.Name, UID: amw.UID}}
	meta := metav1.ObjectMeta{Namespace: "default", Name: name, OwnerReferences: owner}
	cm, err := managed.kube.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	secret, err := managed.kube.CoreV1().Secrets("default").Create(ctx, &corev1.Secret{ObjectMeta: meta, StringData: map[string]string{"k": "v"}}, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	amw.Status = workv1.AppliedManifestWorkStatus{AppliedResources: []workv1.AppliedManifestResourceMeta{
		{ResourceIdentifier: workv1.ResourceIdentifier{Resource: "configmaps", Namespace: "default", Name: name}, Version: "v1", UID: string(cm.UID)},
		{ResourceIdentifier: workv1.ResourceIdentifier{Resource: "secrets", Namespace: "default", Name: name}, Version: "v1", UID: string(secret.UID)},
	}}
	if _, err := managed.works.WorkV1().AppliedManifestWorks().UpdateStatus(ctx, amw, metav1.UpdateOptions{}); err != nil {
		return err
	}
	w.Status = doneStatus(name)
	_, err = works.UpdateStatus(ctx, w, metav1.UpdateOptions{})
	return err
}

// doneStatus is the status the agent reports for a work of a ConfigMap and
// a Secret that are applied and available.
func doneStatus(name string) workv1.ManifestWorkStatus {
	now := metav1.Now()
	cond := func(t string, s metav1.ConditionStatus, reason string) metav1.Condition {
		return metav1.Condition{Type: t, Status: s, Reason: reason, Message: reason, ObservedGeneration: 1, LastTransitionTime: now}
	}
	manifest := func(ordinal int32, kind, resource string) workv1.ManifestCondition {
		return workv1.ManifestCondition{
			ResourceMeta: workv1.ManifestResourceMeta{Ordinal: ordinal, Version: "v1", Kind: kind, Resource: resource, Namespace: "default", Name: name},
			Conditions: []metav1.Condition{cond(workv1.ManifestApplied, metav1.ConditionTrue, workv1.AppliedManifestComplete),
				cond(workv1.ManifestAvailable, metav1.ConditionTrue, manifestwork.ReasonResourceAvailable)},
		}
	}
	return workv1.ManifestWorkStatus{
		Conditions: []metav1.Condition{cond(workv1.WorkApplied, metav1.ConditionTrue, manifestwork.ReasonWorkApplied),
			cond(workv1.WorkAvailable, metav1.ConditionTrue, manifestwork.ReasonWorkAvailable),
			cond(workv1.WorkProgressing, metav1.ConditionFalse, workv1.WorkProgressingReasonCompleted),
			cond(workv1.WorkDegraded, metav1.ConditionFalse, manifestwork.ReasonWorkNotDegraded)},
		ResourceStatus: workv1.ManifestResourceStatus{Manifests: []workv1.ManifestCondition{manifest(0, "ConfigMap", "configmaps"), manifest(1, "Secret", "secrets")}},
	}
}
