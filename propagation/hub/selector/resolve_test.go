package selector

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

func TestResolve(t *testing.T) {
	cases := map[string]struct {
		obj         client.Object
		wantKinds   []string
		wantReason  string // of Selected False; "" for none written
		wantMessage string
		wantResult  steps.Result
	}{
		"a Propagation's namespaced kinds": {
			obj:       propagation(named(sel("apps", "v1", "Deployment"), "web"), sel("", "v1", "ConfigMap")),
			wantKinds: []string{"apps/v1, Kind=Deployment", "/v1, Kind=ConfigMap"},
		},
		"a kind the hub does not serve": {
			obj:         propagation(sel("", "v1", "ConfigMap"), sel("example.com", "v1", "Widget")),
			wantReason:  v1alpha1.ReasonUnknownKind,
			wantMessage: "selector 2: the hub serves no Widget.v1.example.com",
			wantResult:  steps.Result{Stop: true, RequeueAfter: UnknownKindRetry},
		},
		"a version the hub does not serve": {
			obj:         propagation(sel("apps", "v2", "Deployment")),
			wantReason:  v1alpha1.ReasonUnknownKind,
			wantMessage: "selector 1: the hub serves no Deployment.v2.apps",
			wantResult:  steps.Result{Stop: true, RequeueAfter: UnknownKindRetry},
		},
		"a Propagation selecting a cluster-scoped kind": {
			obj:         propagation(named(sel("", "v1", "Namespace"), "shop")),
			wantReason:  ReasonWrongScope,
			wantMessage: "selector 1: Namespace is cluster-scoped; a Propagation selects objects of its namespace",
			wantResult:  steps.StopList,
		},
		"a ClusterPropagation selecting a namespaced kind": {
			obj:         clusterPropagation(v1alpha1.ClusterResourceSelector{ResourceSelector: sel("", "v1", "ConfigMap")}),
			wantReason:  ReasonWrongScope,
			wantMessage: "selector 1: ConfigMap is namespaced; a ClusterPropagation selects cluster-scoped objects, and namespaces with their contents",
			wantResult:  steps.StopList,
		},
		"a ClusterPropagation's Namespaces": {
			obj:       clusterPropagation(v1alpha1.ClusterResourceSelector{ResourceSelector: named(sel("", "v1", "Namespace"), "shop")}),
			wantKinds: []string{"/v1, Kind=Namespace"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := reconciler(t, tc.obj)
			s := loaded(t, r, tc.obj.GetNamespace(), tc.obj.GetName())
			res, err := r.resolve(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantResult, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if tc.wantReason == "" {
				var got []string
				for _, m := range s.mappings {
					got = append(got, m.GroupVersionKind.String())
				}
				if diff := cmp.Diff(tc.wantKinds, got); diff != "" {
					t.Errorf("kinds (-want +got):\n%s", diff)
				}
				return
			}
			status := readStatus(t, r, tc.obj)
			c := meta.FindStatusCondition(status.Conditions, v1alpha1.ConditionSelected)
			if c == nil {
				t.Fatalf("no Selected condition written: %+v", status)
			}
			want := metav1.Condition{Type: v1alpha1.ConditionSelected, Status: metav1.ConditionFalse, Reason: tc.wantReason, Message: tc.wantMessage, ObservedGeneration: tc.obj.GetGeneration()}
			c.LastTransitionTime = metav1.Time{}
			if diff := cmp.Diff(want, *c); diff != "" {
				t.Errorf("Selected (-want +got):\n%s", diff)
			}
		})
	}
}

// readStatus reads obj's status back from r's client.
func readStatus(t *testing.T, r *Reconciler, obj client.Object) v1alpha1.PropagationStatus {
	t.Helper()
	fresh := obj.DeepCopyObject().(client.Object)
	if err := r.Client.Get(context.Background(), client.ObjectKeyFromObject(obj), fresh); err != nil {
		t.Fatal(err)
	}
	return statusOf(fresh)
}
