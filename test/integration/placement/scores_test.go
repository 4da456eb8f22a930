package placement_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// createScore creates the AddOnPlacementScore demo (score demo) in the
// cluster's namespace, creating the namespace.
func createScore(ctx context.Context, cluster string, value int32) {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: cluster}}
	if err := admin.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		Expect(err).NotTo(HaveOccurred())
	}
	DeferCleanup(func(ctx context.Context) { _ = admin.Delete(ctx, ns) })
	s := &clusterv1alpha1.AddOnPlacementScore{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: "demo"}}
	Expect(admin.Create(ctx, s)).To(Succeed())
	setScore(ctx, cluster, value)
}

func setScore(ctx context.Context, cluster string, value int32) {
	GinkgoHelper()
	s := &clusterv1alpha1.AddOnPlacementScore{}
	Expect(admin.Get(ctx, client.ObjectKey{Namespace: cluster, Name: "demo"}, s)).To(Succeed())
	s.Status.Scores = []clusterv1alpha1.AddOnPlacementScoreItem{{Name: "demo", Value: value}}
	Expect(admin.Status().Update(ctx, s)).To(Succeed())
}
