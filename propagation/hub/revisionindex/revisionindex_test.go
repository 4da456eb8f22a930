package revisionindex

import (
	"context"
	"slices"
	"strconv"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

func TestListFindsAPropagationsRevisionsOldestFirst(t *testing.T) {
	meta := func(ns, propagation string, n int64) metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: ns, Name: propagation + "-" + strconv.FormatInt(n, 10),
			Labels: map[string]string{v1alpha1.LabelPropagation: propagation}}
	}
	rev := func(ns, propagation string, n int64) client.Object {
		return &v1alpha1.PropagationRevision{ObjectMeta: meta(ns, propagation, n), Spec: v1alpha1.RevisionSpec{Revision: n}}
	}
	crev := func(propagation string, n int64) client.Object {
		return &v1alpha1.ClusterPropagationRevision{ObjectMeta: meta("", propagation, n), Spec: v1alpha1.RevisionSpec{Revision: n}}
	}
	s := runtime.NewScheme()
	if err := v1alpha1.Install(s); err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(s).
		WithIndex(&v1alpha1.PropagationRevision{}, Field, KeyOf).WithIndex(&v1alpha1.ClusterPropagationRevision{}, Field, KeyOf).
		WithObjects(rev("shop", "web", 10), rev("shop", "web", 9), rev("shop", "api", 1), rev("other", "web", 4), crev("web", 2), crev("web", 1)).Build()
	cases := map[string]struct {
		namespace string
		want      []int64
	}{
		"a Propagation's, in its namespace only": {namespace: "shop", want: []int64{9, 10}},
		"a ClusterPropagation's, cluster-scoped": {want: []int64{1, 2}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			revs, err := List(context.Background(), c, tc.namespace, "web")
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, r := range revs {
				got = append(got, r.Spec.Revision)
				if r.Obj.GetNamespace() != tc.namespace {
					t.Errorf("revision %s/%s listed", r.Obj.GetNamespace(), r.Obj.GetName())
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("revisions %v, want %v", got, tc.want)
			}
		})
	}
}
