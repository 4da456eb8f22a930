package agent

import (
	"context"
	"errors"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clusterfake "open-cluster-management.io/api/client/cluster/clientset/versioned/fake"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/internal/testing/builder"
)

func TestNameFree(t *testing.T) {
	isTrue := func(typ string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: metav1.ConditionTrue, Reason: "Test"}
	}
	accepted, joined, available := isTrue(clusterv1.ManagedClusterConditionHubAccepted), isTrue(clusterv1.ManagedClusterConditionJoined), isTrue(clusterv1.ManagedClusterConditionAvailable)
	for name, tc := range map[string]struct {
		existing  []runtime.Object
		wantTaken bool
	}{
		"no such cluster":              {},
		"asked to join, not accepted":  {existing: []runtime.Object{builder.Cluster("c1").Obj()}},
		"accepted, never joined":       {existing: []runtime.Object{builder.Cluster("c1").Condition(accepted).Obj()}},
		"joined, agent gone (Unknown)": {existing: []runtime.Object{builder.Cluster("c1").Condition(accepted, joined).Obj()}},
		"joined and available":         {existing: []runtime.Object{builder.Cluster("c1").Condition(accepted, joined, available).Obj()}, wantTaken: true},
		"another cluster is held":      {existing: []runtime.Object{builder.Cluster("c2").Condition(accepted, joined, available).Obj()}},
	} {
		t.Run(name, func(t *testing.T) {
			// The api module generates no NewClientset.
			clusters := clusterfake.NewSimpleClientset(tc.existing...) //nolint:staticcheck
			err := nameFree(context.Background(), clusters, "c1")
			if got := errors.Is(err, ErrNameTaken); got != tc.wantTaken {
				t.Fatalf("nameFree = %v, want taken %t", err, tc.wantTaken)
			}
			if !tc.wantTaken && err != nil {
				t.Fatalf("nameFree = %v, want nil", err)
			}
		})
	}
}

func TestRejectedByHub(t *testing.T) {
	gr := schema.GroupResource{Group: "cluster.open-cluster-management.io", Resource: "managedclusters"}
	for name, tc := range map[string]struct {
		err  error
		want bool
	}{
		"forbidden, wrapped": {err: fmt.Errorf("reading: %w", apierrors.NewForbidden(gr, "c1", errors.New("no"))), want: true},
		"unauthorized":       {err: apierrors.NewUnauthorized("expired"), want: true},
		"not found":          {err: apierrors.NewNotFound(gr, "c1")},
		"connection refused": {err: errors.New("dial tcp 127.0.0.1:1: connect: connection refused")},
	} {
		t.Run(name, func(t *testing.T) {
			if got := rejectedByHub(tc.err); got != tc.want {
				t.Errorf("rejectedByHub(%v) = %t, want %t", tc.err, got, tc.want)
			}
		})
	}
}
