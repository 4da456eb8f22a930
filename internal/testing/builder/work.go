package builder

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"
)

// WorkBuilder builds a ManifestWork.
type WorkBuilder struct{ w workv1.ManifestWork }

// Work is the ManifestWork name in the cluster namespace namespace, with
// nothing else set.
func Work(namespace, name string) *WorkBuilder {
	return &WorkBuilder{w: workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}}
}

// Label sets the label k to v.
func (b *WorkBuilder) Label(k, v string) *WorkBuilder {
	setKey(&b.w.Labels, k, v)
	return b
}

// Annotation sets the annotation k to v.
func (b *WorkBuilder) Annotation(k, v string) *WorkBuilder {
	setKey(&b.w.Annotations, k, v)
	return b
}

// Generation sets metadata.generation.
func (b *WorkBuilder) Generation(g int64) *WorkBuilder {
	b.w.Generation = g
	return b
}

// Finalizer adds the finalizer f, as workv1.ManifestWorkFinalizer is its
// work agent's.
func (b *WorkBuilder) Finalizer(f string) *WorkBuilder {
	b.w.Finalizers = append(b.w.Finalizers, f)
	return b
}

// Deleting marks the work deleted at at. A fake client wants a finalizer
// on an object being deleted.
func (b *WorkBuilder) Deleting(at time.Time) *WorkBuilder {
	b.w.DeletionTimestamp = &metav1.Time{Time: at}
	return b
}

// Manifests adds manifests to the workload.
func (b *WorkBuilder) Manifests(manifests ...workv1.Manifest) *WorkBuilder {
	b.w.Spec.Workload.Manifests = append(b.w.Spec.Workload.Manifests, manifests...)
	return b
}

// Executor has the work applied as the service account namespace/name.
func (b *WorkBuilder) Executor(namespace, name string) *WorkBuilder {
	b.w.Spec.Executor = &workv1.ManifestWorkExecutor{Subject: workv1.ManifestWorkExecutorSubject{
		Type: workv1.ExecutorSubjectTypeServiceAccount, ServiceAccount: &workv1.ManifestWorkSubjectServiceAccount{Namespace: namespace, Name: name}}}
	return b
}

// TTLSecondsAfterFinished sets the work's delete option to a TTL after it
// completes; nil sets a delete option without one.
func (b *WorkBuilder) TTLSecondsAfterFinished(ttl *int64) *WorkBuilder {
	b.w.Spec.DeleteOption = &workv1.DeleteOption{TTLSecondsAfterFinished: ttl}
	return b
}

// Condition sets each status condition of cs in place of the one of its
// type, as given.
func (b *WorkBuilder) Condition(cs ...metav1.Condition) *WorkBuilder {
	for _, c := range cs {
		setCondition(&b.w.Status.Conditions, c)
	}
	return b
}

// ManifestStatus adds m to the status of the work's resources, as its
// agent reports one.
func (b *WorkBuilder) ManifestStatus(m workv1.ManifestCondition) *WorkBuilder {
	b.w.Status.ResourceStatus.Manifests = append(b.w.Status.ResourceStatus.Manifests, m)
	return b
}

// Obj is a copy of the ManifestWork built so far.
func (b *WorkBuilder) Obj() *workv1.ManifestWork { return b.w.DeepCopy() }
