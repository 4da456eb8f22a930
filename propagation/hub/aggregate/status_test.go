package aggregate

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
)

type statusCase struct {
	template *unstructured.Unstructured
	members  map[string]Member
	want     map[string]any
	wantErr  bool
}

func runStatus(t *testing.T, cases map[string]statusCase) {
	t.Helper()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Status(tc.template, tc.members)
			if (err != nil) != tc.wantErr {
				t.Fatalf("Status error = %v, want error %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
		})
	}
}

// The hub templates are at generation 3, their status last aggregated
// at generation 2; the members are at generations of their own (5).
func TestStatusDeployment(t *testing.T) {
	tmpl := func(replicas int32) *unstructured.Unstructured {
		return toU(t, deploy(3, replicas, appsv1.DeploymentStatus{ObservedGeneration: 2}))
	}
	done := memberOf(t, deploy(5, 4, dst(5, 4, 4, 4, 4)), 1)
	sums := func(og, replicas, updated, ready, available, unavailable int64) map[string]any {
		m := map[string]any{"observedGeneration": og, "replicas": replicas, "updatedReplicas": updated,
			"readyReplicas": ready, "availableReplicas": available, "unavailableReplicas": unavailable}
		for k, v := range m {
			if v == int64(0) {
				delete(m, k)
			}
		}
		return m
	}
	runStatus(t, map[string]statusCase{
		"every cluster done": {
			template: tmpl(4),
			members:  map[string]Member{"c1": done, "c2": done},
			want:     sums(3, 8, 8, 8, 8, 0),
		},
		"divided 4 and 2 of 6, each done at its share": {
			template: tmpl(6),
			members:  map[string]Member{"c1": done, "c2": memberOf(t, deploy(5, 2, dst(5, 2, 2, 2, 2)), 1)},
			want:     sums(3, 6, 6, 6, 6, 0),
		},
		"divided, one short of its share": {
			template: tmpl(6),
			members:  map[string]Member{"c1": done, "c2": memberOf(t, deploy(5, 2, dst(5, 1, 1, 1, 1)), 1)},
			want:     sums(2, 5, 5, 5, 5, 0),
		},
		"one cluster still scaling up while the sums look complete": {
			template: tmpl(4),
			members:  map[string]Member{"c1": done, "c2": memberOf(t, deploy(5, 4, dst(5, 2, 2, 2, 2)), 1)},
			want:     sums(2, 6, 6, 6, 6, 0),
		},
		"one cluster with old replicas pending termination": {
			template: tmpl(4),
			members:  map[string]Member{"c1": done, "c2": memberOf(t, deploy(5, 4, dst(5, 5, 4, 5, 5)), 1)},
			want:     sums(2, 9, 8, 9, 9, 0),
		},
		"one cluster with updated replicas not yet available": {
			template: tmpl(4),
			members:  map[string]Member{"c1": done, "c2": memberOf(t, deploy(5, 4, dst(5, 4, 4, 3, 3)), 1)},
			want:     sums(2, 8, 8, 7, 7, 1),
		},
		"one cluster has not observed its generation": {
			template: tmpl(4),
			members:  map[string]Member{"c1": done, "c2": memberOf(t, deploy(6, 4, dst(5, 4, 4, 4, 4)), 1)},
			want:     sums(2, 8, 8, 8, 8, 0),
		},
		"one cluster fed nothing back": {
			template: tmpl(4),
			members:  map[string]Member{"c1": done, "c2": {}},
			want:     sums(2, 4, 4, 4, 4, 0),
		},
		"one cluster runs an older revision": {
			template: tmpl(4),
			members:  map[string]Member{"c1": memberOf(t, deploy(5, 4, dst(5, 4, 4, 4, 4)), 1), "c2": func() Member { m := done; m.Outdated = true; return m }()},
			want:     sums(2, 8, 8, 8, 8, 0),
		},
		"held back from the template's generation drops one below it": {
			template: toU(t, deploy(3, 4, appsv1.DeploymentStatus{ObservedGeneration: 3})),
			members:  map[string]Member{"c1": done, "c2": {}},
			want:     sums(2, 4, 4, 4, 4, 0),
		},
		"no clusters": {
			template: tmpl(4),
			want:     sums(2, 0, 0, 0, 0, 0),
		},
		"spec.replicas unset is 1": {
			template: func() *unstructured.Unstructured {
				u := tmpl(4)
				unstructured.RemoveNestedField(u.Object, "spec", "replicas")
				return u
			}(),
			members: map[string]Member{"c1": memberOf(t, deploy(5, 1, dst(5, 1, 1, 1, 1)), 1)},
			want:    sums(3, 1, 1, 1, 1, 0),
		},
		"a cluster past its progress deadline": {
			template: tmpl(4),
			members:  map[string]Member{"c1": done, "c2": memberOf(t, deploy(5, 4, stalled(dst(5, 6, 2, 4, 4))), 1)},
			want: func() map[string]any {
				m := sums(3, 10, 6, 8, 8, 2)
				m["conditions"] = []any{map[string]any{
					"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded",
					"message":        "the rollout exceeded its progress deadline on cluster c2",
					"lastUpdateTime": nil, "lastTransitionTime": nil,
				}}
				return m
			}(),
		},
		"a cluster past its progress deadline of a generation it left": {
			template: tmpl(4),
			members:  map[string]Member{"c1": done, "c2": memberOf(t, deploy(6, 4, stalled(dst(5, 6, 2, 4, 4))), 1)},
			want:     sums(2, 10, 6, 8, 8, 2),
		},
		"a counter fed back as a string": {
			template: tmpl(4),
			members:  map[string]Member{"c1": {Values: map[string]any{"replicas": "4"}}},
			wantErr:  true,
		},
	})
}

func TestStatusStatefulSet(t *testing.T) {
	tmpl := func(partition *int32) *unstructured.Unstructured {
		return toU(t, sts(3, 4, partition, appsv1.StatefulSetStatus{ObservedGeneration: 2}))
	}
	done := memberOf(t, sts(5, 4, nil, ssst(5, 4, 4, 4, 4)), 1)
	want := func(og int64, replicas, ready, current, updated int64, revisions bool) map[string]any {
		m := map[string]any{"observedGeneration": og, "replicas": replicas, "readyReplicas": ready,
			"availableReplicas": ready, "currentReplicas": current, "updatedReplicas": updated}
		if revisions {
			m["currentRevision"], m["updateRevision"] = "web-1", "web-1"
		}
		return m
	}
	runStatus(t, map[string]statusCase{
		"every cluster done": {
			template: tmpl(nil),
			members:  map[string]Member{"c1": done, "c2": done},
			want:     want(3, 8, 8, 8, 8, true),
		},
		"one cluster with pods not ready": {
			template: tmpl(nil),
			members:  map[string]Member{"c1": done, "c2": memberOf(t, sts(5, 4, nil, ssst(5, 4, 2, 4, 4)), 1)},
			want:     want(2, 8, 6, 8, 8, true),
		},
		"partitioned: updated up to the partition is done": {
			template: tmpl(ptr.To[int32](2)),
			members: map[string]Member{
				"c1": memberOf(t, sts(5, 4, ptr.To[int32](2), ssst(5, 4, 4, 2, 2)), 1),
				"c2": memberOf(t, sts(5, 4, ptr.To[int32](2), ssst(5, 4, 4, 2, 2)), 1),
			},
			want: want(3, 8, 8, 4, 4, true),
		},
		"partitioned: one cluster below the partition": {
			template: tmpl(ptr.To[int32](2)),
			members: map[string]Member{
				"c1": memberOf(t, sts(5, 4, ptr.To[int32](2), ssst(5, 4, 4, 0, 4)), 1),
				"c2": memberOf(t, sts(5, 4, ptr.To[int32](2), ssst(5, 4, 4, 3, 1)), 1),
			},
			want: want(2, 8, 8, 3, 5, true),
		},
		"no rollingUpdate: one cluster's revisions differ": {
			template: func() *unstructured.Unstructured {
				u := tmpl(nil)
				unstructured.RemoveNestedField(u.Object, "spec", "updateStrategy", "rollingUpdate")
				return u
			}(),
			members: map[string]Member{"c1": done, "c2": func() Member {
				s := sts(5, 4, nil, ssst(5, 4, 4, 2, 2))
				s.Status.UpdateRevision = "web-2"
				return memberOf(t, s, 1)
			}()},
			want: func() map[string]any {
				m := want(2, 8, 8, 6, 6, false)
				m["currentRevision"] = "web-1"
				return m
			}(),
		},
	})
}

func TestStatusDaemonSet(t *testing.T) {
	tmpl := func(typ appsv1.DaemonSetUpdateStrategyType) *unstructured.Unstructured {
		d := ds(3, appsv1.DaemonSetStatus{ObservedGeneration: 2})
		d.Spec.UpdateStrategy.Type = typ
		return toU(t, d)
	}
	want := func(og, desired, updated, available int64) map[string]any {
		m := map[string]any{"observedGeneration": og, "desiredNumberScheduled": desired, "currentNumberScheduled": desired,
			"numberReady": desired, "numberMisscheduled": int64(0), "updatedNumberScheduled": updated,
			"numberAvailable": available, "numberUnavailable": desired - available}
		if updated == 0 {
			delete(m, "updatedNumberScheduled")
		}
		if available == desired {
			delete(m, "numberUnavailable")
		}
		return m
	}
	runStatus(t, map[string]statusCase{
		"every cluster done, each with its own nodes": {
			template: tmpl(appsv1.RollingUpdateDaemonSetStrategyType),
			members: map[string]Member{
				"c1": memberOf(t, ds(5, dsst(5, 3, 3, 3)), 1),
				"c2": memberOf(t, ds(5, dsst(5, 5, 5, 5)), 1),
			},
			want: want(3, 8, 8, 8),
		},
		"one cluster still updating": {
			template: tmpl(appsv1.RollingUpdateDaemonSetStrategyType),
			members: map[string]Member{
				"c1": memberOf(t, ds(5, dsst(5, 3, 3, 3)), 1),
				"c2": memberOf(t, ds(5, dsst(5, 5, 4, 5)), 1),
			},
			want: want(2, 8, 7, 8),
		},
		"OnDelete waits for availability only": {
			template: tmpl(appsv1.OnDeleteDaemonSetStrategyType),
			members: map[string]Member{
				"c1": memberOf(t, ds(5, dsst(5, 3, 0, 3)), 1),
				"c2": memberOf(t, ds(5, dsst(5, 5, 1, 5)), 1),
			},
			want: want(3, 8, 1, 8),
		},
	})
}

func TestStatusReplicaSet(t *testing.T) {
	tmpl := toU(t, rs(3, 4, appsv1.ReplicaSetStatus{ObservedGeneration: 2}))
	want := func(og, replicas, available int64) map[string]any {
		return map[string]any{"observedGeneration": og, "replicas": replicas, "fullyLabeledReplicas": replicas,
			"readyReplicas": replicas, "availableReplicas": available}
	}
	done := memberOf(t, rs(5, 4, rsst(5, 4, 4)), 1)
	runStatus(t, map[string]statusCase{
		"every cluster done": {
			template: tmpl,
			members:  map[string]Member{"c1": done, "c2": done},
			want:     want(3, 8, 8),
		},
		"one cluster still scaling down": {
			template: tmpl,
			members:  map[string]Member{"c1": done, "c2": memberOf(t, rs(5, 4, rsst(5, 5, 5)), 1)},
			want:     want(2, 9, 9),
		},
		"one cluster's pods not yet available": {
			template: tmpl,
			members:  map[string]Member{"c1": done, "c2": memberOf(t, rs(5, 4, rsst(5, 4, 3)), 1)},
			want:     want(2, 8, 7),
		},
	})
}

func TestStatusJob(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Minute))
	t2 := metav1.NewTime(t0.Add(2 * time.Minute))
	complete := func(start, end metav1.Time) Member {
		return memberOf(t, jobOf(batchv1.JobStatus{
			Succeeded: 1, StartTime: &start, CompletionTime: &end,
			Conditions: []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}},
		}), 1)
	}
	running := memberOf(t, jobOf(batchv1.JobStatus{Active: 1, Ready: ptr.To[int32](1), StartTime: &t1}), 1)
	failed := memberOf(t, jobOf(batchv1.JobStatus{
		Failed: 2, StartTime: &t1,
		Conditions: []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded"}},
	}), 1)
	cond := func(typ, reason, msg string) map[string]any {
		return map[string]any{"type": typ, "status": "True", "reason": reason, "message": msg,
			"lastProbeTime": nil, "lastTransitionTime": nil}
	}
	tmpl := toU(t, jobOf(batchv1.JobStatus{}))
	runStatus(t, map[string]statusCase{
		"every cluster complete": {
			template: tmpl,
			members:  map[string]Member{"c1": complete(t1, t2), "c2": complete(t0, t1)},
			want: map[string]any{
				"succeeded": int64(2), "startTime": "2026-05-01T10:00:00Z", "completionTime": "2026-05-01T10:02:00Z",
				"conditions": []any{cond("SuccessCriteriaMet", "CompletionsReached", "the job completed on every cluster"),
					cond("Complete", "CompletionsReached", "the job completed on every cluster")},
			},
		},
		"one cluster still running": {
			template: tmpl,
			members:  map[string]Member{"c1": complete(t0, t1), "c2": running},
			want:     map[string]any{"succeeded": int64(1), "active": int64(1), "ready": int64(1), "startTime": "2026-05-01T10:00:00Z"},
		},
		"one cluster failed, the other still running": {
			template: tmpl,
			members:  map[string]Member{"c1": failed, "c2": running},
			want:     map[string]any{"failed": int64(2), "active": int64(1), "ready": int64(1), "startTime": "2026-05-01T10:01:00Z"},
		},
		"one cluster failed, the other complete": {
			template: tmpl,
			members:  map[string]Member{"c1": failed, "c2": complete(t0, t2)},
			want: map[string]any{
				"failed": int64(2), "succeeded": int64(1), "startTime": "2026-05-01T10:00:00Z",
				"conditions": []any{
					cond("FailureTarget", "BackoffLimitExceeded", "the job failed on cluster c1"),
					cond("Failed", "BackoffLimitExceeded", "the job failed on cluster c1"),
				},
			},
		},
		"one cluster fed nothing back": {
			template: tmpl,
			members:  map[string]Member{"c1": complete(t0, t1), "c2": {}},
			want:     map[string]any{"succeeded": int64(1), "startTime": "2026-05-01T10:00:00Z"},
		},
		"no clusters": {
			template: tmpl,
			want:     map[string]any{},
		},
	})
}

func TestStatusUnsupportedKind(t *testing.T) {
	pod := &unstructured.Unstructured{}
	pod.SetAPIVersion("v1")
	pod.SetKind("Pod")
	if _, err := Status(pod, nil); err == nil {
		t.Error("Status of a Pod: no error")
	}
}
