package aggregate

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	workv1 "open-cluster-management.io/api/work/v1"
)

func TestSupported(t *testing.T) {
	cases := map[string]struct {
		gvk  schema.GroupVersionKind
		want bool
	}{
		"deployment":              {gvk: appsv1.SchemeGroupVersion.WithKind("Deployment"), want: true},
		"statefulset":             {gvk: appsv1.SchemeGroupVersion.WithKind("StatefulSet"), want: true},
		"daemonset":               {gvk: appsv1.SchemeGroupVersion.WithKind("DaemonSet"), want: true},
		"replicaset":              {gvk: appsv1.SchemeGroupVersion.WithKind("ReplicaSet"), want: true},
		"job":                     {gvk: batchv1.SchemeGroupVersion.WithKind("Job"), want: true},
		"another version of apps": {gvk: schema.GroupVersionKind{Group: "apps", Version: "v1beta2", Kind: "Deployment"}, want: true},
		"cronjob":                 {gvk: batchv1.SchemeGroupVersion.WithKind("CronJob")},
		"a deployment of a CRD":   {gvk: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Deployment"}},
		"pod":                     {gvk: corev1.SchemeGroupVersion.WithKind("Pod")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Supported(tc.gvk); got != tc.want {
				t.Errorf("Supported(%s) = %v, want %v", tc.gvk, got, tc.want)
			}
			if got := FeedbackRules(tc.gvk) != nil; got != tc.want {
				t.Errorf("FeedbackRules(%s) != nil is %v, want %v", tc.gvk, got, tc.want)
			}
		})
	}
}

// TestFeedbackRules reads each kind's rules from a member object whose
// every field is set, as a work agent does, and checks that every path
// reads one scalar of the type NewMember expects: the label's escaped
// path included.
func TestFeedbackRules(t *testing.T) {
	now := metav1.Now()
	cases := map[string]struct {
		obj  runtime.Object
		want map[string]any
	}{
		"deployment": {
			obj: deploy(7, 4, stalled(dst(7, 5, 3, 4, 2))),
			want: map[string]any{
				"generation": int64(7), "revision": "1", "observedGeneration": int64(7),
				"replicas": int64(5), "updatedReplicas": int64(3), "readyReplicas": int64(4),
				"availableReplicas": int64(2), "unavailableReplicas": int64(3),
				"progressingReason": "ProgressDeadlineExceeded", "specReplicas": int64(4),
			},
		},
		"statefulset": {
			obj: func() runtime.Object {
				s := sts(2, 3, nil, ssst(2, 3, 3, 1, 2))
				s.Status.UpdateRevision = "web-2"
				return s
			}(),
			want: map[string]any{
				"generation": int64(2), "revision": "1", "observedGeneration": int64(2),
				"replicas": int64(3), "readyReplicas": int64(3), "availableReplicas": int64(3),
				"currentReplicas": int64(1), "updatedReplicas": int64(2),
				"currentRevision": "web-1", "updateRevision": "web-2", "specReplicas": int64(3),
			},
		},
		"daemonset": {
			obj: func() runtime.Object {
				d := ds(3, dsst(3, 5, 4, 3))
				d.Status.NumberMisscheduled = 1
				return d
			}(),
			want: map[string]any{
				"generation": int64(3), "revision": "1", "observedGeneration": int64(3),
				"currentNumberScheduled": int64(5), "numberMisscheduled": int64(1),
				"desiredNumberScheduled": int64(5), "numberReady": int64(5),
				"updatedNumberScheduled": int64(4), "numberAvailable": int64(3), "numberUnavailable": int64(2),
			},
		},
		"replicaset": {
			obj: rs(4, 3, rsst(4, 3, 2)),
			want: map[string]any{
				"generation": int64(4), "revision": "1", "observedGeneration": int64(4),
				"replicas": int64(3), "fullyLabeledReplicas": int64(3), "readyReplicas": int64(3),
				"availableReplicas": int64(2), "specReplicas": int64(3),
			},
		},
		"failed job": {
			obj: jobOf(batchv1.JobStatus{
				Active: 1, Succeeded: 2, Failed: 3, Ready: ptr.To[int32](1), StartTime: &now, CompletionTime: &now,
				Conditions: []batchv1.JobCondition{
					{Type: batchv1.JobFailureTarget, Status: "True", Reason: "BackoffLimitExceeded"},
					{Type: batchv1.JobFailed, Status: "True", Reason: "BackoffLimitExceeded"},
					{Type: batchv1.JobComplete, Status: "False"},
				},
			}),
			want: map[string]any{
				"generation": int64(1), "revision": "1",
				"active": int64(1), "succeeded": int64(2), "failed": int64(3), "ready": int64(1),
				"complete": "False", "failedCondition": "True", "failedReason": "BackoffLimitExceeded",
				"startTime": now.UTC().Format("2006-01-02T15:04:05Z"), "completionTime": now.UTC().Format("2006-01-02T15:04:05Z"),
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := memberOf(t, tc.obj, 1)
			if diff := cmp.Diff(Member{Values: tc.want}, got); diff != "" {
				t.Errorf("member (-want +got):\n%s", diff)
			}
			// Every rule read something: none is misspelled.
			u := toU(t, tc.obj)
			var names []string
			for _, p := range FeedbackRules(u.GroupVersionKind())[0].JsonPaths {
				names = append(names, p.Name)
			}
			var fed []string
			for n := range got.Values {
				fed = append(fed, n)
			}
			sort.Strings(names)
			sort.Strings(fed)
			if diff := cmp.Diff(names, fed); diff != "" {
				t.Errorf("rules that read nothing (-rules +fed):\n%s", diff)
			}
		})
	}
}

func TestFeedbackRulesShape(t *testing.T) {
	rules := FeedbackRules(appsv1.SchemeGroupVersion.WithKind("Deployment"))
	if len(rules) != 1 || rules[0].Type != workv1.JSONPathsType {
		t.Fatalf("FeedbackRules = %+v, want one JSONPaths rule", rules)
	}
	seen := map[string]bool{}
	for _, p := range rules[0].JsonPaths {
		if seen[p.Name] {
			t.Errorf("name %s twice: names are the feedback list's keys", p.Name)
		}
		seen[p.Name] = true
		if p.Version != "" {
			t.Errorf("path %s pins version %s: the rules hold for every version", p.Name, p.Version)
		}
	}
}
