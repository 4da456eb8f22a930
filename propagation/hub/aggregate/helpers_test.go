package aggregate

import (
	"fmt"
	"strconv"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/jsonpath"
	"k8s.io/utils/ptr"
	workv1 "open-cluster-management.io/api/work/v1"

	appsv1alpha1 "github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// toU converts a typed object to the unstructured form the API server
// serves (numbers as int64).
func toU(t *testing.T, obj runtime.Object) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatalf("converting %T: %v", obj, err)
	}
	return &unstructured.Unstructured{Object: m}
}

// feedback reads rules from obj the way a work agent does (OCM's and
// corral's both evaluate each JSONPath over the whole object and keep
// one scalar).
func feedback(t *testing.T, obj *unstructured.Unstructured, rules []workv1.FeedbackRule) workv1.StatusFeedbackResult {
	t.Helper()
	var out workv1.StatusFeedbackResult
	for _, r := range rules {
		for _, p := range r.JsonPaths {
			jp := jsonpath.New(p.Name).AllowMissingKeys(true)
			if err := jp.Parse(fmt.Sprintf("{%s}", p.Path)); err != nil {
				t.Fatalf("path %s (%s): %v", p.Name, p.Path, err)
			}
			found, err := jp.FindResults(obj.Object)
			if err != nil {
				t.Fatalf("path %s (%s): %v", p.Name, p.Path, err)
			}
			if len(found) == 0 || len(found[0]) == 0 {
				continue
			}
			if len(found) > 1 || len(found[0]) > 1 {
				t.Fatalf("path %s (%s) matches more than one value", p.Name, p.Path)
			}
			out.Values = append(out.Values, workv1.FeedbackValue{Name: p.Name, Value: scalar(t, p.Name, found[0][0].Interface())})
		}
	}
	return out
}

func scalar(t *testing.T, name string, v any) workv1.FieldValue {
	t.Helper()
	switch x := v.(type) {
	case int64:
		return workv1.FieldValue{Type: workv1.Integer, Integer: &x}
	case string:
		return workv1.FieldValue{Type: workv1.String, String: &x}
	case bool:
		return workv1.FieldValue{Type: workv1.Boolean, Boolean: &x}
	}
	t.Fatalf("path %s reads a %T, not a scalar", name, v)
	return workv1.FieldValue{}
}

// memberOf is the Member a work agent's feedback on the cluster's obj
// makes, for delivered revision rev.
func memberOf(t *testing.T, obj runtime.Object, rev int64) Member {
	t.Helper()
	u := toU(t, obj)
	m, err := NewMember(feedback(t, u, FeedbackRules(u.GroupVersionKind())), rev)
	if err != nil {
		t.Fatalf("NewMember: %v", err)
	}
	return m
}

// meta is an object's metadata: a member's own generation, and the
// revision label the propagation puts on what it delivers.
func meta(gen, rev int64) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name: "web", Namespace: "shop", Generation: gen,
		Labels: map[string]string{appsv1alpha1.LabelRevision: strconv.FormatInt(rev, 10)},
	}
}

// deploy is a Deployment of replicas at generation gen, with status st;
// the hub's defaults are set, as the hub's API server sets them.
func deploy(gen int64, replicas int32, st appsv1.DeploymentStatus) *appsv1.Deployment {
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: meta(gen, 1),
		Spec: appsv1.DeploymentSpec{
			Replicas:                ptr.To(replicas),
			ProgressDeadlineSeconds: ptr.To[int32](600),
			Strategy:                appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType},
		},
		Status: st,
	}
}

// dst is a Deployment status: observed generation, then replicas,
// updated, ready and available.
func dst(observed int64, replicas, updated, ready, available int32) appsv1.DeploymentStatus {
	return appsv1.DeploymentStatus{
		ObservedGeneration: observed, Replicas: replicas, UpdatedReplicas: updated,
		ReadyReplicas: ready, AvailableReplicas: available, UnavailableReplicas: max(replicas-available, 0),
	}
}

// stalled is st with Progressing=False, ProgressDeadlineExceeded.
func stalled(st appsv1.DeploymentStatus) appsv1.DeploymentStatus {
	st.Conditions = []appsv1.DeploymentCondition{
		{Type: appsv1.DeploymentAvailable, Status: "True", Reason: "MinimumReplicasAvailable"},
		{Type: appsv1.DeploymentProgressing, Status: "False", Reason: ReasonProgressDeadlineExceeded},
	}
	return st
}

// sts is a StatefulSet of replicas at generation gen with status st;
// partition, when not nil, is its rolling update's partition.
func sts(gen int64, replicas int32, partition *int32, st appsv1.StatefulSetStatus) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
		ObjectMeta: meta(gen, 1),
		Spec: appsv1.StatefulSetSpec{
			Replicas: ptr.To(replicas),
			UpdateStrategy: appsv1.StatefulSetUpdateStrategy{
				Type:          appsv1.RollingUpdateStatefulSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: partition},
			},
		},
		Status: st,
	}
}

// ssst is a StatefulSet status: observed generation, then replicas,
// ready, current and updated.
func ssst(observed int64, replicas, ready, current, updated int32) appsv1.StatefulSetStatus {
	return appsv1.StatefulSetStatus{
		ObservedGeneration: observed, Replicas: replicas, ReadyReplicas: ready, AvailableReplicas: ready,
		CurrentReplicas: current, UpdatedReplicas: updated, CurrentRevision: "web-1", UpdateRevision: "web-1",
	}
}

// ds is a DaemonSet at generation gen with status st.
func ds(gen int64, st appsv1.DaemonSetStatus) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: meta(gen, 1),
		Spec: appsv1.DaemonSetSpec{
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType},
		},
		Status: st,
	}
}

// dsst is a DaemonSet status: observed generation, then desired,
// updated and available (scheduled and ready as desired).
func dsst(observed int64, desired, updated, available int32) appsv1.DaemonSetStatus {
	return appsv1.DaemonSetStatus{
		ObservedGeneration: observed, DesiredNumberScheduled: desired, CurrentNumberScheduled: desired,
		NumberReady: desired, UpdatedNumberScheduled: updated, NumberAvailable: available,
		NumberUnavailable: desired - available,
	}
}

// rs is a ReplicaSet of replicas at generation gen with status st.
func rs(gen int64, replicas int32, st appsv1.ReplicaSetStatus) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: meta(gen, 1),
		Spec:       appsv1.ReplicaSetSpec{Replicas: ptr.To(replicas)},
		Status:     st,
	}
}

// rsst is a ReplicaSet status: observed generation, then replicas and
// available (labelled and ready as replicas).
func rsst(observed int64, replicas, available int32) appsv1.ReplicaSetStatus {
	return appsv1.ReplicaSetStatus{
		ObservedGeneration: observed, Replicas: replicas, FullyLabeledReplicas: replicas,
		ReadyReplicas: replicas, AvailableReplicas: available,
	}
}

// jobOf is a Job with status st.
func jobOf(st batchv1.JobStatus) *batchv1.Job {
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: meta(1, 1),
		Status:     st,
	}
}
