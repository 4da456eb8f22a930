package builder

import (
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// LeaseBuilder builds a Lease.
type LeaseBuilder struct{ l coordinationv1.Lease }

// Lease is the Lease namespace/name, never renewed.
func Lease(namespace, name string) *LeaseBuilder {
	return &LeaseBuilder{l: coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}}
}

// RenewedAt sets the lease's renewTime.
func (b *LeaseBuilder) RenewedAt(t time.Time) *LeaseBuilder {
	renewed := metav1.NewMicroTime(t)
	b.l.Spec.RenewTime = &renewed
	return b
}

// Obj is a copy of the Lease built so far.
func (b *LeaseBuilder) Obj() *coordinationv1.Lease { return b.l.DeepCopy() }
