package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/testing/builder"
	"github.com/corral-dev/corral/work/hub/replicaset"
)

// agents plays the hub's set controller and the clusters' work agents
// until ctx ends: each set's works are made from its template (when
// makeWorks), and each work reports, as report says for its cluster, the
// Deployment apps/web with that many ready replicas (-1: nothing yet).
func agents(ctx context.Context, t *testing.T, c client.Client, makeWorks bool, report map[string]int64) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if makeWorks {
			sets := &workv1alpha1.ManifestWorkReplicaSetList{}
			_ = c.List(ctx, sets)
			for _, s := range sets.Items {
				hash, _ := replicaset.TemplateHash(&s)
				for cluster := range report {
					w := &workv1.ManifestWork{}
					err := c.Get(ctx, client.ObjectKey{Namespace: cluster, Name: s.Name}, w)
					w.Name, w.Namespace, w.Spec = s.Name, cluster, s.Spec.ManifestWorkTemplate
					w.Labels = map[string]string{workv1alpha1.ManifestWorkReplicaSetControllerNameLabelKey: s.Namespace + "." + s.Name}
					w.Annotations = map[string]string{replicaset.TemplateHashAnnotation: hash}
					if err != nil {
						_ = c.Create(ctx, w)
					} else {
						_ = c.Update(ctx, w)
					}
				}
			}
		}
		works := &workv1.ManifestWorkList{}
		_ = c.List(ctx, works)
		for _, w := range works.Items {
			ready, ok := report[w.Namespace]
			if !ok || ready < 0 {
				continue
			}
			w.Status = reportedStatus(ready)
			_ = c.Update(ctx, &w)
		}
	}
}

// reportedStatus is a work's status, applied and available, with the
// Deployment apps/web's ready replicas.
func reportedStatus(ready int64) workv1.ManifestWorkStatus {
	conds := []metav1.Condition{workApplied, {Type: workv1.WorkAvailable, Status: metav1.ConditionTrue, Reason: "Test"}}
	return workv1.ManifestWorkStatus{Conditions: conds, ResourceStatus: workv1.ManifestResourceStatus{Manifests: []workv1.ManifestCondition{{
		ResourceMeta:    workv1.ManifestResourceMeta{Group: "apps", Kind: "Deployment", Namespace: "apps", Name: "web"},
		StatusFeedbacks: workv1.StatusFeedbackResult{Values: []workv1.FeedbackValue{{Name: "ReadyReplicas", Value: workv1.FieldValue{Type: workv1.Integer, Integer: &ready}}}},
	}}}}
}

func TestWait(t *testing.T) {
	decision := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "prod-1", Labels: map[string]string{clusterv1beta1.PlacementLabel: "prod"}},
		Status: clusterv1beta1.PlacementDecisionStatus{Decisions: []clusterv1beta1.ClusterDecision{{ClusterName: "c1"}, {ClusterName: "c2"}}}}
	staleWork := builder.Work("c1", "web").Label(workv1alpha1.ManifestWorkReplicaSetControllerNameLabelKey, "apps.web").
		Annotation(replicaset.TemplateHashAnnotation, "old").Obj()
	staleWork.Status = reportedStatus(2)
	oldSet := &workv1alpha1.ManifestWorkReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "web"},
		Spec: workv1alpha1.ManifestWorkReplicaSetSpec{PlacementRefs: []workv1alpha1.LocalPlacementReference{{Name: "prod"}}}}
	cases := map[string]struct {
		objs      []client.Object
		placement bool
		apply     bool
		makeWorks bool
		report    map[string]int64
		out       string
		err       string
	}{
		"ready on every cluster": {objs: readyClusters("c1", "c2"), report: map[string]int64{"c1": 2, "c2": 3},
			out: "manifestwork web created on cluster c1\nmanifestwork web created on cluster c2\napplied, available and ready on 2 of 2 clusters\n"},
		"a Deployment short of replicas": {objs: readyClusters("c1", "c2"), report: map[string]int64{"c1": 2, "c2": 1},
			err: "not ready within 300ms: applied, available and ready on 1 of 2 clusters; c2: Deployment apps/web: 1 of 2 replicas ready (corral work get web shows more)"},
		"not picked up": {objs: readyClusters("c1", "c2"), report: map[string]int64{"c1": 2},
			err: "applied, available and ready on 1 of 2 clusters; c2: not applied yet"},
		"a set's works": {objs: []client.Object{builder.Placement("apps", "prod").Obj(), decision}, placement: true, makeWorks: true, report: map[string]int64{"c1": 2, "c2": 2},
			out: "applied, available and ready on 2 of 2 clusters\n"},
		"a set whose works hold its old template": {objs: []client.Object{builder.Placement("apps", "prod").Obj(), decision, oldSet, staleWork, builder.Work("c2", "web").Obj()},
			placement: true, apply: true, report: map[string]int64{"c1": 2, "c2": 2},
			err: "applied, available and ready on 0 of 2 clusters; c1: still has the set's previous objects (rolling out); c2: no work yet"},
		"a placement selecting none": {objs: []client.Object{builder.Placement("apps", "prod").Obj()}, placement: true,
			out: "manifestworkreplicaset web created in namespace apps, on the clusters placement prod selects\nplacement prod selects no cluster: nothing to wait for\n"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fakeHub(t, tc.objs...)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go agents(ctx, t, c, tc.makeWorks, tc.report)
			out, _, err := deliver(t, c, tc.apply, func(o *CreateOptions) {
				// Short only where the wait must time out: a busy machine
				// may take seconds to run the fake agents.
				o.Wait, o.Timeout = true, 30*time.Second
				if tc.err != "" {
					o.Timeout = 300 * time.Millisecond
				}
				o.Clusters = []string{"c1", "c2"}
				if tc.placement {
					o.Clusters, o.Placement, o.Namespace = nil, "prod", "apps"
				}
			})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(out, tc.out) {
				t.Errorf("printed %q, want it to end with %q", out, tc.out)
			}
		})
	}
}

func TestWorkloadNotReady(t *testing.T) {
	i := func(n int64) workv1.FieldValue { return workv1.FieldValue{Type: workv1.Integer, Integer: &n} }
	s := func(v string) workv1.FieldValue { return workv1.FieldValue{Type: workv1.String, String: &v} }
	cases := map[string]struct {
		manifest string
		fb       map[string]workv1.FieldValue
		want     string
	}{
		"no feedback":                    {manifest: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"a"}}`, want: "no status feedback yet (it needs WellKnownStatus feedback: --feedback)"},
		"Deployment: replicas default 1": {manifest: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"a"}}`, fb: map[string]workv1.FieldValue{"readyreplicas": i(1)}},
		"StatefulSet: the manifest's replicas, not the fed-back ones": {manifest: `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"a"},"spec":{"replicas":3}}`,
			fb: map[string]workv1.FieldValue{"readyreplicas": i(2), "replicas": i(2)}, want: "2 of 3 replicas ready"},
		"DaemonSet ready":     {manifest: `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"a"}}`, fb: map[string]workv1.FieldValue{"numberready": i(2), "desirednumberscheduled": i(2)}},
		"DaemonSet not ready": {manifest: `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"a"}}`, fb: map[string]workv1.FieldValue{"numberready": i(1), "desirednumberscheduled": i(2)}, want: "1 of 2 pods ready"},
		"Job complete":        {manifest: `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"a"}}`, fb: map[string]workv1.FieldValue{"jobcomplete": s("True")}},
		"Job running":         {manifest: `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"a"}}`, fb: map[string]workv1.FieldValue{"jobsucceeded": i(0)}, want: "not complete yet"},
		"Pod pending":         {manifest: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"}}`, fb: map[string]workv1.FieldValue{"podphase": s("Pending")}, want: "not ready (phase Pending)"},
		"Pod succeeded":       {manifest: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"}}`, fb: map[string]workv1.FieldValue{"podphase": s("Succeeded")}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u := object(workv1.Manifest{RawExtension: rawExtension(tc.manifest)})
			if got := workloadNotReady(u, tc.fb); got != tc.want {
				t.Errorf("workloadNotReady = %q, want %q", got, tc.want)
			}
		})
	}
}

func rawExtension(s string) runtime.RawExtension { return runtime.RawExtension{Raw: []byte(s)} }
