package clusterset

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/steps"
)

// Names of the sets the hub keeps, as OCM names them.
const (
	// DefaultSetName is the exclusive set of the clusters labelled
	// cluster.open-cluster-management.io/clusterset=default.
	DefaultSetName = "default"
	// GlobalSetName is the set of every cluster.
	GlobalSetName = "global"
)

// AutoUpdateAnnotation set to "false" on a built-in set stops the hub from
// putting back its clusterSelector; the hub still re-creates the set if it is
// deleted.
const AutoUpdateAnnotation = "cluster.open-cluster-management.io/autoupdate"

// Event reasons of the built-in sets.
const (
	ReasonBuiltinCreated  = "ManagedClusterSetCreated"
	ReasonBuiltinRestored = "ManagedClusterSetSelectorRestored"
)

// BuiltinSelector returns the clusterSelector of the built-in set name, and
// whether name is one.
func BuiltinSelector(name string) (clusterv1beta2.ManagedClusterSelector, bool) {
	switch name {
	case DefaultSetName:
		return clusterv1beta2.ManagedClusterSelector{SelectorType: clusterv1beta2.ExclusiveClusterSetLabel}, true
	case GlobalSetName:
		return clusterv1beta2.ManagedClusterSelector{
			SelectorType:  clusterv1beta2.LabelSelector,
			LabelSelector: &metav1.LabelSelector{},
		}, true
	}
	return clusterv1beta2.ManagedClusterSelector{}, false
}

// builtinNames are the built-in sets, looked at once when the controller
// starts so that a hub without them gets them.
var builtinNames = []string{DefaultSetName, GlobalSetName}

// createBuiltin creates the built-in set name, which is missing.
func (r *Reconciler) createBuiltin(ctx context.Context, name string) error {
	selector, ok := BuiltinSelector(name)
	if !ok {
		return nil
	}
	set := &clusterv1beta2.ManagedClusterSet{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       clusterv1beta2.ManagedClusterSetSpec{ClusterSelector: selector},
	}
	err := r.Client.Create(ctx, set, client.FieldOwner(FieldOwner))
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("creating the %s ManagedClusterSet: %w", name, err)
	}
	ctrl.LoggerFrom(ctx).V(1).Info("Created the built-in ManagedClusterSet", "set", name)
	r.event(set, corev1.EventTypeNormal, ReasonBuiltinCreated, "Create", "Created the built-in ManagedClusterSet %s", name)
	return nil
}

// restoreBuiltinSelector puts back a built-in set's clusterSelector if it
// was changed, unless the set opts out with the autoupdate annotation. The
// rest of the set is the user's.
func (r *Reconciler) restoreBuiltinSelector(ctx context.Context, s *scope) (steps.Result, error) {
	want, ok := BuiltinSelector(s.set.Name)
	if !ok || equality.Semantic.DeepEqual(s.set.Spec.ClusterSelector, want) {
		return steps.Continue, nil
	}
	if s.set.Annotations[AutoUpdateAnnotation] == "false" {
		ctrl.LoggerFrom(ctx).V(4).Info("Leaving a changed built-in ManagedClusterSet alone", "set", s.set.Name, "annotation", AutoUpdateAnnotation)
		return steps.Continue, nil
	}
	s.set.Spec.ClusterSelector = want
	if err := r.Client.Patch(ctx, s.set, client.MergeFromWithOptions(s.original, client.MergeFromWithOptimisticLock{}), client.FieldOwner(FieldOwner)); err != nil {
		return steps.StopList, fmt.Errorf("restoring the clusterSelector of %s: %w", s.set.Name, err)
	}
	ctrl.LoggerFrom(ctx).V(1).Info("Restored the clusterSelector of a built-in ManagedClusterSet", "set", s.set.Name)
	r.event(s.set, corev1.EventTypeWarning, ReasonBuiltinRestored, "Update",
		"Put back the clusterSelector of the built-in ManagedClusterSet %s; annotate it %s=false to keep a changed one", s.set.Name, AutoUpdateAnnotation)
	// The update comes back as an event; its status is computed then.
	return steps.StopList, nil
}
