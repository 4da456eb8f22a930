// Package steps runs a reconcile as an ordered list of small steps over a
// scope: each step may stop the list or ask for a requeue,
// errors are collected rather than ending the list early unless the step
// stops it, and the shortest requeue wins.
package steps

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
)

// Result is what one step asks for.
type Result struct {
	// Stop ends the list after this step.
	Stop bool
	// RequeueAfter, when set, asks to look again after that long.
	RequeueAfter time.Duration
}

// Continue is the result of a step that has nothing to ask.
var Continue = Result{}

// StopList is the result of a step after which the rest must not run, for
// example because it wrote the object and the next reconcile sees the new one.
var StopList = Result{Stop: true}

// Step is one small piece of a reconcile.
type Step[S any] struct {
	Name string
	Run  func(ctx context.Context, scope S) (Result, error)
}

// ConflictRetry is how soon a reconcile that lost a write race looks again.
const ConflictRetry = 100 * time.Millisecond

// Run runs steps in order over scope. A step that fails without stopping
// lets the later steps run; the errors are joined, each naming its step. A
// conflict (another writer changed the object first) is not an error: the
// list stops and the object is looked at again shortly.
func Run[S any](ctx context.Context, scope S, steps ...Step[S]) (ctrl.Result, error) {
	var (
		errs    []error
		requeue time.Duration
	)
	for _, step := range steps {
		res, err := step.Run(ctx, scope)
		if lostRace(ctx, err, "step", step.Name) {
			res, err = Result{Stop: true, RequeueAfter: ConflictRetry}, nil
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", step.Name, err))
		}
		if res.RequeueAfter > 0 && (requeue == 0 || res.RequeueAfter < requeue) {
			requeue = res.RequeueAfter
		}
		if res.Stop {
			break
		}
	}
	if err := errors.Join(errs...); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: requeue}, nil
}

// AfterWrite is what a reconcile that is not a list of steps returns once
// it has written, with the write's error: a conflict is not an error but a
// prompt, quiet look again, as in Run, so that controllers racing on one
// object (the addon manager's, the framework's) do not fill the log with
// errors that mean nothing; any other error is returned as it is.
func AfterWrite(ctx context.Context, err error) (ctrl.Result, error) {
	if lostRace(ctx, err) {
		return ctrl.Result{RequeueAfter: ConflictRetry}, nil
	}
	return ctrl.Result{}, err
}

// lostRace says whether err is a write conflict (another writer changed
// the object first), and logs it at V(4) with keysAndValues.
func lostRace(ctx context.Context, err error, keysAndValues ...any) bool {
	if !apierrors.IsConflict(err) {
		return false
	}
	ctrl.LoggerFrom(ctx).V(4).Info("Write conflict; looking again", keysAndValues...)
	return true
}
