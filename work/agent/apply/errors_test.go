package apply

import (
	"errors"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestRetriable(t *testing.T) {
	notFound := apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, "ns")
	cases := map[string]struct {
		err       error
		retriable bool
	}{
		"no error":                                    {},
		"an error from the managed cluster":           {err: fmt.Errorf("creating: %w", notFound), retriable: true},
		"a conflict with another manager":             {err: &ConflictError{Err: errors.New("conflict")}, retriable: true},
		"a manifest that cannot be applied":           {err: invalidError{errors.New("no namespace")}},
		"ignoreFields that cannot be processed":       {err: &IgnoreFieldsError{Err: errors.New("jq")}},
		"an object the managed cluster finds invalid": {err: fmt.Errorf("creating: %w", apierrors.NewInvalid(schema.GroupKind{Kind: "ConfigMap"}, "cm", nil))},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Retriable(tc.err); got != tc.retriable {
				t.Errorf("Retriable(%v) = %v, want %v", tc.err, got, tc.retriable)
			}
		})
	}
}
