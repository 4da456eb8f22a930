package hubclient

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
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
