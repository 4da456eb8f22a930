package status

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/propagation/hub/aggregate"
)

// writeStatus writes each target's aggregated status into its template's
// /status, when it differs from the template's, guarded by the
// resourceVersion read: a template read stale from the cache conflicts,
// and is looked at again. A template no longer on the hub is skipped.
func (r *Reconciler) writeStatus(ctx context.Context, s *scope) (steps.Result, error) {
	var errs []error
	for i, t := range s.targets {
		if s.members[i] == nil {
			continue
		}
		if err := r.writeOne(ctx, t, s.members[i]); err != nil {
			errs = append(errs, fmt.Errorf("%s %s/%s: %w", t.gvk.Kind, t.id.Namespace, t.id.Name, err))
		}
	}
	return steps.Continue, errors.Join(errs...)
}

func (r *Reconciler) writeOne(ctx context.Context, t target, members map[string]aggregate.Member) error {
	tmpl := &unstructured.Unstructured{}
	tmpl.SetGroupVersionKind(t.gvk)
	if err := r.Templates.Get(ctx, client.ObjectKey{Namespace: t.id.Namespace, Name: t.id.Name}, tmpl); err != nil {
		return client.IgnoreNotFound(err)
	}
	want, err := aggregate.Status(tmpl, members)
	if err != nil {
		return err
	}
	have, _, _ := unstructured.NestedMap(tmpl.Object, "status")
	if equality.Semantic.DeepEqual(have, want) {
		return nil
	}
	tmpl.Object["status"] = want
	if err := r.Client.Status().Update(ctx, tmpl); err != nil {
		return fmt.Errorf("writing the aggregated status: %w", err)
	}
	ctrl.LoggerFrom(ctx).V(1).Info("Wrote a template's aggregated status", "template", klog.KObj(tmpl),
		"kind", t.gvk.Kind, "clusters", len(members), "observedGeneration", want["observedGeneration"])
	return nil
}
