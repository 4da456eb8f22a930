package aggregate

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// named is a member with its cluster's name.
type named struct {
	cluster string
	Member
}

// Status is the aggregated `.status` of template, from members: one
// entry per cluster the template is delivered to, a zero Member for one
// that fed nothing back yet. Counters are summed. observedGeneration is
// the template's metadata.generation when every member observed its own
// object's generation, is of the delivered revision and is settled: done
// by the check kubectl's rollout status makes, on that member alone,
// against the template's spec, or failed for good (a Deployment past its
// progress deadline, shown as the template's Progressing=False condition
// with that reason). Otherwise it is the template's previous
// observedGeneration if lower, else one less than its generation, so
// that kubectl and Argo CD keep waiting. No members at all is not done.
//
// The result has the shape the API server stores (it goes through the
// kind's typed status), so it compares equal to the template's status
// once written.
func Status(template *unstructured.Unstructured, members map[string]Member) (map[string]any, error) {
	gk := template.GroupVersionKind().GroupKind()
	w, ok := workloads[gk]
	if !ok {
		return nil, fmt.Errorf("the status of kind %s is not aggregated", gk)
	}
	ms := make([]named, 0, len(members))
	for cluster, m := range members {
		ms = append(ms, named{cluster: cluster, Member: m})
	}
	slices.SortFunc(ms, func(a, b named) int { return strings.Compare(a.cluster, b.cluster) })

	// A counter no member fed back stays unset: a pointer one (a Job's
	// ready) is then absent, as on a cluster.
	status := map[string]any{}
	for _, c := range w.counters {
		var sum int64
		fed := false
		for _, m := range ms {
			n, err := m.count(c)
			if err != nil {
				return nil, fmt.Errorf("cluster %s: %w", m.cluster, err)
			}
			_, ok := m.Values[c]
			fed = fed || ok
			sum += n
		}
		if fed {
			status[c] = sum
		}
	}
	if w.generation {
		og, err := observedGeneration(template, w, ms)
		if err != nil {
			return nil, err
		}
		status[FeedbackObservedGeneration] = og
	}
	if w.finish != nil {
		if err := w.finish(status, ms); err != nil {
			return nil, err
		}
	}
	return w.normalize(status)
}

// observedGeneration is the template's generation if every member is
// settled, else held back.
func observedGeneration(template *unstructured.Unstructured, w *workload, ms []named) (int64, error) {
	gen := template.GetGeneration()
	prev, _, err := unstructured.NestedInt64(template.Object, "status", "observedGeneration")
	if err != nil {
		return 0, fmt.Errorf("the template's status: %w", err)
	}
	held := max(gen-1, 0)
	if prev < gen {
		held = prev
	}
	if len(ms) == 0 {
		return held, nil
	}
	spec, _, err := unstructured.NestedMap(template.Object, "spec")
	if err != nil {
		return 0, fmt.Errorf("the template's spec: %w", err)
	}
	for _, m := range ms {
		if !m.observed(true) {
			return held, nil
		}
		ok, err := w.settled(spec, m.Member)
		if err != nil {
			return 0, fmt.Errorf("cluster %s: %w", m.cluster, err)
		}
		if !ok {
			return held, nil
		}
	}
	return gen, nil
}

// normalize puts status through the kind's typed status, so that fields
// the API server omits when empty are omitted.
func (w *workload) normalize(status map[string]any) (map[string]any, error) {
	typed := w.typed()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(status, typed); err != nil {
		return nil, fmt.Errorf("aggregated status: %w", err)
	}
	out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		return nil, fmt.Errorf("aggregated status: %w", err)
	}
	return out, nil
}

// clusters lists the members' cluster names for a message.
func clusters(ms []named) string {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.cluster
	}
	return strings.Join(names, ", ")
}
