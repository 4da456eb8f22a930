package status

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

func TestCheckEnabled(t *testing.T) {
	deleting := prop(1)
	now := metav1.Now()
	deleting.DeletionTimestamp, deleting.Finalizers = &now, []string{v1alpha1.Finalizer}
	disabled := prop(1)
	disabled.Spec.StatusAggregation = v1alpha1.StatusAggregationDisabled
	enabled := prop(1)
	enabled.Spec.StatusAggregation = v1alpha1.StatusAggregationEnabled
	cases := map[string]struct {
		p    *v1alpha1.Propagation
		want steps.Result
	}{
		"enabled":                      {p: enabled, want: steps.Continue},
		"unset (the default, Enabled)": {p: prop(1), want: steps.Continue},
		"disabled":                     {p: disabled, want: steps.StopList},
		"being deleted":                {p: deleting, want: steps.StopList},
		"no revision delivered":        {p: prop(0), want: steps.StopList},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := (&Reconciler{}).checkEnabled(context.Background(), scopeOf(tc.p))
			if err != nil || got != tc.want {
				t.Errorf("checkEnabled = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestReadTargets(t *testing.T) {
	cases := map[string]struct {
		delivered int64
		want      []target
		stop      bool
	}{
		"the delivered revision's Deployment": {delivered: 2, want: []target{webTarget}},
		"a revision without aggregated kinds": {delivered: 1, stop: true},
		"a revision not in the cache":         {delivered: 3, stop: true},
		"a Deployment out of an envelope":     {delivered: 4, stop: true},
	}
	enveloped := manifest(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop","annotations":{"` +
		v1alpha1.AnnotationEnvelope + `":"shop/hooks"}}}`)
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := &Reconciler{Client: fakeClient(t, rev(1, cmManifest), rev(2, cmManifest, webManifest), rev(4, enveloped)), Namespaced: true}
			s := scopeOf(prop(tc.delivered))
			got, err := r.readTargets(context.Background(), s)
			if err != nil || got.Stop != tc.stop {
				t.Fatalf("readTargets = %+v, %v; want stop %v", got, err, tc.stop)
			}
			if diff := cmp.Diff(tc.want, s.targets, cmp.AllowUnexported(target{})); diff != "" {
				t.Errorf("targets (-want +got):\n%s", diff)
			}
		})
	}
}
