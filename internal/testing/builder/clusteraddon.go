package builder

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
)

// AddOnBuilder builds a ManagedClusterAddOn (v1alpha1, the version the
// hub's controllers read).
type AddOnBuilder struct {
	mca addonv1alpha1.ManagedClusterAddOn
}

// AddOn is the addon name enabled on the cluster whose namespace is
// namespace, with nothing else set.
func AddOn(namespace, name string) *AddOnBuilder {
	return &AddOnBuilder{mca: addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}}
}

// Condition sets each status condition of cs in place of the one of its
// type, as given.
func (b *AddOnBuilder) Condition(cs ...metav1.Condition) *AddOnBuilder {
	for _, c := range cs {
		setCondition(&b.mca.Status.Conditions, c)
	}
	return b
}

// ConfigReference adds ref to the configs the addon's status says it
// uses.
func (b *AddOnBuilder) ConfigReference(ref addonv1alpha1.ConfigReference) *AddOnBuilder {
	b.mca.Status.ConfigReferences = append(b.mca.Status.ConfigReferences, ref)
	return b
}

// Obj is a copy of the ManagedClusterAddOn built so far.
func (b *AddOnBuilder) Obj() *addonv1alpha1.ManagedClusterAddOn { return b.mca.DeepCopy() }

// Finalizer adds the finalizer f.
func (b *AddOnBuilder) Finalizer(f string) *AddOnBuilder {
	b.mca.Finalizers = append(b.mca.Finalizers, f)
	return b
}

// Deleting marks the addon deleted at at. A fake client wants a finalizer
// on an object being deleted.
func (b *AddOnBuilder) Deleting(at time.Time) *AddOnBuilder {
	b.mca.DeletionTimestamp = &metav1.Time{Time: at}
	return b
}
