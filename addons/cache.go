package addons

import (
	"reflect"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/compact"
)

// HubCache is the hub's shared cache's settings by type for the addons'
// HubCache transforms: an object of such a type has its managedFields
// stripped, as every other object in the hub's cache, goes through each
// addon's transform of the type, in the addons' order, and is compacted
// (compact.Transform).
func HubCache(addons []Addon) map[client.Object]cache.ByObject {
	type chain struct {
		obj        client.Object
		transforms []toolscache.TransformFunc
	}
	var order []reflect.Type
	byType := map[reflect.Type]*chain{}
	for _, a := range addons {
		for obj, transform := range a.HubCache {
			t := reflect.TypeOf(obj)
			c := byType[t]
			if c == nil {
				c = &chain{obj: obj}
				byType[t] = c
				order = append(order, t)
			}
			c.transforms = append(c.transforms, transform)
		}
	}
	out := map[client.Object]cache.ByObject{}
	for _, t := range order {
		c := byType[t]
		out[c.obj] = cache.ByObject{Transform: compact.Transform(c.transforms...)}
	}
	return out
}
