// Package fieldindex adds a field index to a manager's cache once,
// however many of the controllers that list by it set up: each may also
// run alone, and a cache refuses an index it has already.
package fieldindex

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

type key struct {
	indexer client.FieldIndexer
	kind    reflect.Type
	field   string
}

var (
	mu    sync.Mutex
	added = map[key]bool{}
)

// Once adds the index field of obj's kind, by extract, to indexer (a
// manager's GetFieldIndexer, its cache), unless it was added there
// already.
func Once(indexer client.FieldIndexer, obj client.Object, field string, extract client.IndexerFunc) error {
	mu.Lock()
	defer mu.Unlock()
	k := key{indexer: indexer, kind: reflect.TypeOf(obj), field: field}
	if added[k] {
		return nil
	}
	if err := indexer.IndexField(context.Background(), obj, field, extract); err != nil {
		return fmt.Errorf("indexing %T by %s: %w", obj, field, err)
	}
	added[k] = true
	return nil
}
