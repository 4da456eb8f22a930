package hubclient

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// TestWatchShowsAgainAfterAChange: Watch prints once at the start, again
// after a change to a watched kind, and returns nil when stopped.
func TestWatchShowsAgainAfterAChange(t *testing.T) {
	scheme, err := Scheme()
	if err != nil {
		t.Fatal(err)
	}
	h := Hub{Client: fake.NewClientBuilder().WithScheme(scheme).Build()}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var shown atomic.Int32
	done := make(chan error, 1)
	go func() {
		done <- h.Watch(ctx, func(context.Context) error { shown.Add(1); return nil },
			Watched{List: &clusterv1.ManagedClusterList{}})
	}()
	// The watch may open after a create: create until a second print
	// shows that one was seen.
	deadline := time.Now().Add(30 * time.Second)
	for i := 0; shown.Load() < 2; i++ {
		if time.Now().After(deadline) {
			t.Fatalf("no print after changes; prints: %d", shown.Load())
		}
		mc := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("c%d", i)}}
		if err := h.Client.Create(ctx, mc); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond) // pacing the creates, not synchronisation
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Watch returned %v after being stopped, want nil", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Watch did not return after its context ended")
	}
}

// TestWatchReturnsShowsError: a failing print ends the watch with its error.
func TestWatchReturnsShowsError(t *testing.T) {
	scheme, err := Scheme()
	if err != nil {
		t.Fatal(err)
	}
	h := Hub{Client: fake.NewClientBuilder().WithScheme(scheme).Build()}
	want := fmt.Errorf("boom")
	if err := h.Watch(context.Background(), func(context.Context) error { return want },
		Watched{List: &clusterv1.ManagedClusterList{}}); !errors.Is(err, want) {
		t.Fatalf("Watch = %v, want %v", err, want)
	}
}

// TestWatchDoesWithoutAnOptionalKindItMayNotRead: a kind marked Optional
// that the user may not list is left unwatched, and the watch goes on; a
// required one ends it with the error.
func TestWatchDoesWithoutAnOptionalKindItMayNotRead(t *testing.T) {
	scheme, err := Scheme()
	if err != nil {
		t.Fatal(err)
	}
	forbidden := apierrors.NewForbidden(schema.GroupResource{Group: "cluster.open-cluster-management.io", Resource: "managedclustersetbindings"}, "", errors.New("no"))
	c := fake.NewClientBuilder().WithScheme(scheme).WithInterceptorFuncs(interceptor.Funcs{
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			if _, ok := list.(*clusterv1beta2.ManagedClusterSetBindingList); ok {
				return forbidden
			}
			return c.List(ctx, list, opts...)
		},
	}).Build()
	h := Hub{Client: c}
	ctx, cancel := context.WithCancel(context.Background())
	shown := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		done <- h.Watch(ctx, func(context.Context) error { signal(shown); return nil },
			Watched{List: &clusterv1.ManagedClusterList{}},
			Watched{List: &clusterv1beta2.ManagedClusterSetBindingList{}, Optional: true})
	}()
	select {
	case <-shown:
	case err := <-done:
		t.Fatalf("Watch ended before printing: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("no table within 30s")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Watch = %v, want nil", err)
	}
	err = h.Watch(context.Background(), func(context.Context) error { return nil },
		Watched{List: &clusterv1beta2.ManagedClusterSetBindingList{}})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("Watch of a required kind it may not read = %v, want the Forbidden error", err)
	}
}
