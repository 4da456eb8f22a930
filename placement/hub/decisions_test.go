package hub

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"open-cluster-management.io/api/client/cluster/clientset/versioned/fake"
	clusterlisters "open-cluster-management.io/api/client/cluster/listers/cluster/v1beta1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
)

// A page edited by another writer while the scheduler writes it: the
// edit's event comes while the page is pending and is ignored, and the
// scheduler's write, made on the version before the edit, conflicts. The
// state must then take the edited version from the informer, so that the
// next write succeeds instead of conflicting for ever.
func TestAPageWriteThatLostToAnotherWriterCatchesUp(t *testing.T) {
	key := types.NamespacedName{Namespace: "ns", Name: "p"}
	labels := map[string]string{clusterv1beta1.PlacementLabel: "p", clusterv1beta1.DecisionGroupIndexLabel: "0"}
	before := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p-decision-1", Labels: labels, ResourceVersion: "5"}}
	edited := before.DeepCopy()
	edited.ResourceVersion, edited.Annotations = "6", map[string]string{"edited": "by someone"}

	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	if err := indexer.Add(before); err != nil {
		t.Fatal(err)
	}
	client := fake.NewSimpleClientset(edited.DeepCopy()) //nolint:staticcheck // the api module's fake has no NewClientset
	c := &Controller{client: client, state: newState(), decisions: clusterlisters.NewPlacementDecisionLister(indexer), log: klog.Background()}
	c.state.setPage(key, before.Name, before)
	client.PrependReactor("update", "placementdecisions", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if !indexerHas(indexer, edited) { // the edit reaches the informer while the page is pending
			if err := indexer.Update(edited); err != nil {
				t.Fatal(err)
			}
			c.onDecision(before, edited)
		}
		d := a.(clienttesting.UpdateAction).GetObject().(*clusterv1beta1.PlacementDecision).DeepCopy()
		if d.ResourceVersion != edited.ResourceVersion {
			return true, nil, apierrors.NewConflict(clusterv1beta1.Resource("placementdecisions"), before.Name, nil)
		}
		d.ResourceVersion = "7" // as the API server would
		return true, d, nil
	})
	want := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: before.Name, Labels: labels},
		Status: clusterv1beta1.PlacementDecisionStatus{Decisions: []clusterv1beta1.ClusterDecision{{ClusterName: "c1"}}}}
	write := func() error {
		w := &work{key: key, held: map[string]*clusterv1beta1.PlacementDecision{}}
		for name, pg := range c.state.pages[key] {
			w.held[name] = pg
		}
		return c.writePage(context.Background(), w, want)
	}

	if err := write(); !apierrors.IsConflict(err) {
		t.Fatalf("the write on the version before the edit: %v, want a conflict", err)
	}
	if got := c.state.pages[key][before.Name].ResourceVersion; got != edited.ResourceVersion {
		t.Fatalf("after the conflict the state holds version %s, want the edited %s from the informer", got, edited.ResourceVersion)
	}
	if err := write(); err != nil {
		t.Fatalf("the write after catching up: %v, want it written", err)
	}
	if got := c.state.decided[key]; len(got) != 1 || !got.Has("c1") {
		t.Errorf("the state's decided clusters after the write: %v, want c1", got)
	}
}

// A page deleted by another writer while the scheduler writes it: the
// state forgets it, so that the next write creates it again.
func TestAPageDeletedDuringItsWriteIsForgotten(t *testing.T) {
	key := types.NamespacedName{Namespace: "ns", Name: "p"}
	labels := map[string]string{clusterv1beta1.PlacementLabel: "p", clusterv1beta1.DecisionGroupIndexLabel: "0"}
	held := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p-decision-1", Labels: labels, ResourceVersion: "5"}}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	c := &Controller{client: fake.NewSimpleClientset(), //nolint:staticcheck // the api module's fake has no NewClientset
		state: newState(), decisions: clusterlisters.NewPlacementDecisionLister(indexer), log: klog.Background()}
	c.state.setPage(key, held.Name, held)
	w := &work{key: key, held: map[string]*clusterv1beta1.PlacementDecision{held.Name: held}}
	want := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: held.Name, Labels: labels},
		Status: clusterv1beta1.PlacementDecisionStatus{Decisions: []clusterv1beta1.ClusterDecision{{ClusterName: "c1"}}}}
	if err := c.writePage(context.Background(), w, want); !apierrors.IsNotFound(err) {
		t.Fatalf("writing a page deleted meanwhile: %v, want not found", err)
	}
	if _, ok := c.state.pages[key][held.Name]; ok {
		t.Error("the state still holds the deleted page: the next write would update it again instead of creating it")
	}
}

func indexerHas(indexer cache.Indexer, d *clusterv1beta1.PlacementDecision) bool {
	got, ok, _ := indexer.Get(d)
	return ok && got.(*clusterv1beta1.PlacementDecision).ResourceVersion == d.ResourceVersion
}
