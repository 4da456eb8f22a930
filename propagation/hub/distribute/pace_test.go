package distribute

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// TestStatusInProgressIsPaced: once a rollout wrote works, a status in
// progress waits for the pacer's interval and a status that reached its
// end is written at once.
func TestStatusInProgressIsPaced(t *testing.T) {
	blue := rev(1, configMap("blue"))
	cases := map[string]struct {
		pin       *int64
		objs      []client.Object
		wantWrite bool
	}{
		"in progress: held back":                     {objs: []client.Object{blue, work("c1", 1, done...), work("c2", 1)}},
		"no revision yet: held back":                 {},
		"applied everywhere: written":                {objs: []client.Object{blue, work("c1", 1, done...), work("c2", 1, done...)}, wantWrite: true},
		"a cluster failed: written at once":          {objs: []client.Object{blue, work("c1", 1, done...), work("c2", 1, cond(workv1.WorkApplied, metav1.ConditionFalse))}, wantWrite: true},
		"a pinned revision missing: written at once": {pin: ptr.To[int64](7), wantWrite: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			prop := newProp(all)
			prop.Spec.Revision = tc.pin
			objs := append(append([]client.Object{prop}, tc.objs...), placement("c1", "c2")...)
			c := fakeClient(t, interceptor.Funcs{}, objs...)
			r := reconciler(c)
			clock := now
			r.pace = newPacer(time.Minute)
			r.pace.now = func() time.Time { return clock }
			r.pace.wrote(reqWeb.NamespacedName) // the works, just written

			res, err := r.Reconcile(context.Background(), reqWeb)
			if err != nil {
				t.Fatal(err)
			}
			p := &v1alpha1.Propagation{}
			if err := c.Get(context.Background(), reqWeb.NamespacedName, p); err != nil {
				t.Fatal(err)
			}
			if wrote := p.Status.ObservedGeneration != 0; wrote != tc.wantWrite {
				t.Fatalf("status written %t, want %t", wrote, tc.wantWrite)
			}
			if tc.wantWrite {
				return
			}
			if res.RequeueAfter != time.Minute {
				t.Errorf("looked at again after %s, want the interval, 1m0s", res.RequeueAfter)
			}
			clock = clock.Add(time.Minute)
			run(t, r)
			if err := c.Get(context.Background(), reqWeb.NamespacedName, p); err != nil {
				t.Fatal(err)
			}
			if p.Status.ObservedGeneration != 1 {
				t.Errorf("after the interval: status not written (%+v)", p.Status)
			}
		})
	}
}

func TestPacerWithoutIntervalNeverWaits(t *testing.T) {
	p := newPacer(-1)
	p.wrote(reqWeb.NamespacedName)
	if w := p.wait(reqWeb.NamespacedName); w != 0 {
		t.Errorf("wait %s, want 0", w)
	}
}
