package fieldindex

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// indexer counts the indexes added to it.
type indexer struct{ added map[string]int }

func (i *indexer) IndexField(_ context.Context, obj client.Object, field string, _ client.IndexerFunc) error {
	i.added[field]++
	return nil
}

func TestOnceAddsEachIndexOncePerIndexer(t *testing.T) {
	name := func(client.Object) []string { return nil }
	a, b := &indexer{added: map[string]int{}}, &indexer{added: map[string]int{}}
	for range 3 {
		for _, i := range []*indexer{a, b} {
			if err := Once(i, &corev1.ConfigMap{}, "by-app", name); err != nil {
				t.Fatal(err)
			}
			if err := Once(i, &corev1.Secret{}, "by-app", name); err != nil {
				t.Fatal(err)
			}
		}
	}
	for n, i := range map[string]*indexer{"a": a, "b": b} {
		if i.added["by-app"] != 2 {
			t.Errorf("indexer %s: by-app added %d times, want 2 (ConfigMap, Secret)", n, i.added["by-app"])
		}
	}
}
