package managedcluster

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ensure makes the object desired describes exist as described, writing as
// little as it can: nothing when the cached copy already has every field
// desired sets, a create when there is none, and a server-side apply
// (taking the fields over) otherwise. A thousand clusters accepted at once,
// or a hub restarting, cost the API server only what is missing.
func (r *Reconciler) ensure(ctx context.Context, desired runtime.ApplyConfiguration) error {
	raw, err := json.Marshal(desired)
	if err != nil {
		return err
	}
	want, obj, err := decode(r.Client.Scheme(), raw)
	if err != nil {
		return err
	}
	current := obj.DeepCopyObject().(client.Object)
	err = r.Client.Get(ctx, client.ObjectKeyFromObject(obj), current)
	switch {
	case apierrors.IsNotFound(err):
		// Not ours yet, as far as the cache knows: create it. If it does
		// exist (unlabelled, or not cached yet), apply takes it over.
		err = r.Client.Create(ctx, obj, client.FieldOwner(FieldOwner))
		if !apierrors.IsAlreadyExists(err) {
			return err
		}
	case err != nil:
		return err
	default:
		have, err := toMap(current)
		if err != nil {
			return err
		}
		if covers(have, want) {
			return nil
		}
	}
	return r.Client.Apply(ctx, desired, client.FieldOwner(FieldOwner), client.ForceOwnership)
}

// Object is the typed object desired describes, of a kind in scheme, as
// ensure creates it.
func Object(scheme *runtime.Scheme, desired runtime.ApplyConfiguration) (client.Object, error) {
	raw, err := json.Marshal(desired)
	if err != nil {
		return nil, err
	}
	_, obj, err := decode(scheme, raw)
	return obj, err
}

// decode turns an apply configuration's JSON into the fields it sets (less
// apiVersion and kind, which cached objects do not carry) and the typed
// object it describes, of a kind in scheme.
func decode(scheme *runtime.Scheme, raw []byte) (map[string]any, client.Object, error) {
	var want map[string]any
	if err := json.Unmarshal(raw, &want); err != nil {
		return nil, nil, err
	}
	apiVersion, _ := want["apiVersion"].(string)
	kind, _ := want["kind"].(string)
	delete(want, "apiVersion")
	delete(want, "kind")
	o, err := scheme.New(schema.FromAPIVersionAndKind(apiVersion, kind))
	if err != nil {
		return nil, nil, err
	}
	obj, ok := o.(client.Object)
	if !ok {
		return nil, nil, fmt.Errorf("%s %s is not an object", apiVersion, kind)
	}
	if err := json.Unmarshal(raw, obj); err != nil {
		return nil, nil, err
	}
	return want, obj, nil
}

func toMap(obj any) (map[string]any, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(raw, &m)
}

// covers reports whether have holds every field want sets, with the same
// value: maps may hold more keys, lists must have as many items, each
// covering its counterpart.
func covers(have, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range w {
			if !covers(h[k], v) {
				return false
			}
		}
		return true
	case []any:
		h, ok := have.([]any)
		if !ok || len(h) != len(w) {
			return false
		}
		for i := range w {
			if !covers(h[i], w[i]) {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(have, want)
	}
}
