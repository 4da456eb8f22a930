package apply

import (
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// ConflictError is a server-side apply refused because another field
// manager owns fields the manifest sets.
type ConflictError struct{ Err error }

func (e *ConflictError) Error() string { return e.Err.Error() }
func (e *ConflictError) Unwrap() error { return e.Err }

// IgnoreFieldsError is a server-side apply whose ignoreFields could not be
// processed.
type IgnoreFieldsError struct{ Err error }

func (e *IgnoreFieldsError) Error() string { return e.Err.Error() }
func (e *IgnoreFieldsError) Unwrap() error { return e.Err }

// invalidError is a manifest that cannot be applied as it is written.
type invalidError struct{ error }

func (e invalidError) Unwrap() error { return e.error }

// Retriable says whether applying the manifest again may succeed while its
// ManifestWork stays as it is: the failure came from the managed cluster (a
// namespace not created yet, a webhook not ready, fields another manager
// holds for now), not from the manifest or its configuration, nor from the
// managed API server finding the object invalid, nor an adoption policy
// refusing to take an object over (its change, or the manifest's, brings
// the work back).
func Retriable(err error) bool {
	var invalid invalidError
	var ignore *IgnoreFieldsError
	var notAdopted *NotAdoptedError
	return err != nil && !errors.As(err, &invalid) && !errors.As(err, &ignore) && !errors.As(err, &notAdopted) && !apierrors.IsInvalid(err)
}
