// Package fieldpatch makes JSON patches that set fields of an object only if
// they still hold what was read: a guard on those fields alone, where a
// merge patch with the resourceVersion fails on a change to anything. Two
// controllers writing different fields of a busy object — a cluster that
// just joined gets its finalizer, its taints and its acceptance at once —
// then do not make each other retry.
package fieldpatch

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Field is one field to set: at Path (a JSON pointer such as
// "/metadata/finalizers"), from Have to Want, both marshalling to JSON. An
// empty Have or Want (nil, or an empty slice or map, as omitempty leaves
// out) means the field is absent: tested as such, removed.
type Field struct {
	Path       string
	Have, Want any
}

// Set returns a JSON patch that tests that the field at path holds have
// and then sets it to want.
func Set(path string, have, want any) (client.Patch, error) {
	return Fields(Field{Path: path, Have: have, Want: want})
}

// Fields returns a JSON patch that tests every field first, then sets them
// all: all or nothing.
func Fields(fields ...Field) (client.Patch, error) {
	var tests, sets []map[string]any
	for _, f := range fields {
		have := f.Have
		if empty(have) {
			have = nil
		}
		tests = append(tests, map[string]any{"op": "test", "path": f.Path, "value": have})
		switch {
		case !empty(f.Want):
			sets = append(sets, map[string]any{"op": "add", "path": f.Path, "value": f.Want})
		case have != nil:
			sets = append(sets, map[string]any{"op": "remove", "path": f.Path})
		}
	}
	raw, err := json.Marshal(append(tests, sets...))
	if err != nil {
		return nil, err
	}
	return client.RawPatch(types.JSONPatchType, raw), nil
}

func empty(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Slice, reflect.Map:
		return rv.Len() == 0
	case reflect.Pointer, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// Changed reports whether err is the API server refusing such a patch
// because its test failed (422): the field changed since it was read, or
// holds a value in another form than the reader's.
func Changed(err error) bool { return apierrors.IsInvalid(err) }

// AsAPIServer is a Patch interceptor for controller-runtime's fake client
// (interceptor.Funcs{Patch: fieldpatch.AsAPIServer}): the fake returns the
// patch library's plain error for a JSON patch whose test fails, where the
// API server answers 422, which Changed recognises.
func AsAPIServer(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	err := c.Patch(ctx, obj, patch, opts...)
	var status apierrors.APIStatus
	if err != nil && patch.Type() == types.JSONPatchType && !errors.As(err, &status) {
		return apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
	}
	return err
}
