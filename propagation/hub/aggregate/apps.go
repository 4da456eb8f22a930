package aggregate

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	workv1 "open-cluster-management.io/api/work/v1"
)

// ReasonProgressDeadlineExceeded is the reason of a Deployment's
// Progressing=False condition when its rollout stalled; a member's
// surfaces on the template.
const ReasonProgressDeadlineExceeded = "ProgressDeadlineExceeded"

var deployment = &workload{
	counters: []string{"replicas", "updatedReplicas", "readyReplicas", "availableReplicas", "unavailableReplicas"},
	extra: []workv1.JsonPath{{Name: FeedbackProgressingReason, Path: conditionPath(string(appsv1.DeploymentProgressing), "reason")},
		specReplicasPath},
	generation: true,
	settled: func(spec map[string]any, m Member) (bool, error) {
		if m.str(FeedbackProgressingReason) == ReasonProgressDeadlineExceeded {
			return true, nil
		}
		want, err := memberReplicas(spec, m)
		if err != nil {
			return false, err
		}
		c, err := counts(m, "replicas", "updatedReplicas", "availableReplicas")
		if err != nil {
			return false, err
		}
		replicas, updated, available := c[0], c[1], c[2]
		return updated >= want && replicas <= updated && available >= updated, nil
	},
	finish: func(status map[string]any, ms []named) error {
		var stalled []named
		for _, m := range ms {
			if m.observed(true) && m.str(FeedbackProgressingReason) == ReasonProgressDeadlineExceeded {
				stalled = append(stalled, m)
			}
		}
		if len(stalled) > 0 {
			status["conditions"] = []any{map[string]any{
				"type":    string(appsv1.DeploymentProgressing),
				"status":  "False",
				"reason":  ReasonProgressDeadlineExceeded,
				"message": "the rollout exceeded its progress deadline on cluster " + clusters(stalled),
			}}
		}
		return nil
	},
	typed: func() any { return &appsv1.DeploymentStatus{} },
}

var statefulSet = &workload{
	counters: []string{"replicas", "readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas"},
	extra: []workv1.JsonPath{
		{Name: FeedbackCurrentRevision, Path: ".status.currentRevision"},
		{Name: FeedbackUpdateRevision, Path: ".status.updateRevision"},
		specReplicasPath,
	},
	generation: true,
	settled: func(spec map[string]any, m Member) (bool, error) {
		want, err := memberReplicas(spec, m)
		if err != nil {
			return false, err
		}
		c, err := counts(m, "readyReplicas", "updatedReplicas")
		if err != nil {
			return false, err
		}
		ready, updated := c[0], c[1]
		if ready < want {
			return false, nil
		}
		typ, rolling, err := updateStrategy(spec)
		if err != nil || typ != string(appsv1.RollingUpdateStatefulSetStrategyType) {
			return err == nil, err
		}
		if rolling == nil {
			return m.str(FeedbackUpdateRevision) == m.str(FeedbackCurrentRevision), nil
		}
		partition, found, err := unstructured.NestedInt64(rolling, "partition")
		if err != nil {
			return false, fmt.Errorf("the template's spec.updateStrategy: %w", err)
		}
		return !found || updated >= want-partition, nil
	},
	finish: func(status map[string]any, ms []named) error {
		for _, name := range []string{FeedbackCurrentRevision, FeedbackUpdateRevision} {
			if v, ok := common(ms, name); ok {
				status[name] = v
			}
		}
		return nil
	},
	typed: func() any { return &appsv1.StatefulSetStatus{} },
}

var daemonSet = &workload{
	counters: []string{
		"currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady",
		"updatedNumberScheduled", "numberAvailable", "numberUnavailable",
	},
	generation: true,
	settled: func(spec map[string]any, m Member) (bool, error) {
		c, err := counts(m, "desiredNumberScheduled", "updatedNumberScheduled", "numberAvailable")
		if err != nil {
			return false, err
		}
		desired, updated, available := c[0], c[1], c[2]
		typ, _, err := updateStrategy(spec)
		if err != nil {
			return false, err
		}
		// OnDelete updates no pod on its own: only availability can
		// be waited for.
		if typ == string(appsv1.RollingUpdateDaemonSetStrategyType) && updated < desired {
			return false, nil
		}
		return available >= desired, nil
	},
	typed: func() any { return &appsv1.DaemonSetStatus{} },
}

var replicaSet = &workload{
	counters:   []string{"replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas"},
	extra:      []workv1.JsonPath{specReplicasPath},
	generation: true,
	settled: func(spec map[string]any, m Member) (bool, error) {
		want, err := memberReplicas(spec, m)
		if err != nil {
			return false, err
		}
		c, err := counts(m, "replicas", "availableReplicas")
		if err != nil {
			return false, err
		}
		return c[0] == want && c[1] >= want, nil
	},
	typed: func() any { return &appsv1.ReplicaSetStatus{} },
}

// specReplicasPath feeds a member's own spec.replicas back.
var specReplicasPath = workv1.JsonPath{Name: FeedbackSpecReplicas, Path: ".spec.replicas"}

// memberReplicas is how many replicas m is to run: its own spec.replicas
// as fed back (its share, when the propagation divides them), else the
// template's.
func memberReplicas(spec map[string]any, m Member) (int64, error) {
	if _, fed := m.Values[FeedbackSpecReplicas]; fed {
		return m.count(FeedbackSpecReplicas)
	}
	return specReplicas(spec)
}

// specReplicas is the template's spec.replicas, 1 when unset (the
// default).
func specReplicas(spec map[string]any) (int64, error) {
	n, found, err := unstructured.NestedInt64(spec, "replicas")
	if err != nil {
		return 0, fmt.Errorf("the template's spec: %w", err)
	}
	if !found {
		return 1, nil
	}
	return n, nil
}

// updateStrategy is the template's spec.updateStrategy: its type
// (RollingUpdate when unset, the default) and its rollingUpdate.
func updateStrategy(spec map[string]any) (string, map[string]any, error) {
	typ, found, err := unstructured.NestedString(spec, "updateStrategy", "type")
	if err != nil {
		return "", nil, fmt.Errorf("the template's spec.updateStrategy: %w", err)
	}
	if !found {
		typ = "RollingUpdate"
	}
	rolling, _, err := unstructured.NestedMap(spec, "updateStrategy", "rollingUpdate")
	if err != nil {
		return "", nil, fmt.Errorf("the template's spec.updateStrategy: %w", err)
	}
	return typ, rolling, nil
}

// counts are m's values of names.
func counts(m Member, names ...string) ([]int64, error) {
	out := make([]int64, len(names))
	for i, name := range names {
		n, err := m.count(name)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// common is the string value name when every member fed back the same
// one.
func common(ms []named, name string) (string, bool) {
	var v string
	for i, m := range ms {
		s := m.str(name)
		if s == "" || (i > 0 && s != v) {
			return "", false
		}
		v = s
	}
	return v, v != ""
}
