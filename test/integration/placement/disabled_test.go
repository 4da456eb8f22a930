package placement_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var _ = Describe("disabled scheduling", func() {
	It("leaves a placement annotated experimental-scheduling-disable and its decisions alone, and schedules it once the annotation goes", func(ctx context.Context) {
		f := newFixture(ctx)
		clusters := f.clusters(ctx, f.set, 2, nil)
		f.bind(ctx, f.set)
		By("another controller deciding for it, even before it is created")
		d := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "manual-decision-1",
			Labels: map[string]string{clusterv1beta1.PlacementLabel: "manual"}}}
		Expect(admin.Create(ctx, d)).To(Succeed())
		d.Status.Decisions = []clusterv1beta1.ClusterDecision{{ClusterName: clusters[0], Reason: "chosen by hand"}}
		Expect(admin.Status().Update(ctx, d)).To(Succeed())
		Expect(admin.Create(ctx, f.placement("manual", func(p *clusterv1beta1.Placement) {
			p.Annotations = map[string]string{clusterv1beta1.PlacementDisableAnnotation: "true"}
		}))).To(Succeed())

		By("a placement scheduled after it shows the scheduler has seen both")
		Expect(admin.Create(ctx, f.placement("beside", nil))).To(Succeed())
		f.eventuallyDecided(ctx, "beside", clusters)
		key := client.ObjectKey{Namespace: f.ns, Name: "manual"}
		Consistently(func(g Gomega) {
			g.Expect(f.decided(ctx, "manual")).To(Equal(clusters[:1]))
			p := &clusterv1beta1.Placement{}
			g.Expect(admin.Get(ctx, key, p)).To(Succeed())
			g.Expect(p.Status.Conditions).To(BeEmpty())
		}).WithTimeout(2 * time.Second).Should(Succeed())

		By("removing the annotation")
		p := &clusterv1beta1.Placement{}
		Expect(admin.Get(ctx, key, p)).To(Succeed())
		delete(p.Annotations, clusterv1beta1.PlacementDisableAnnotation)
		Expect(admin.Update(ctx, p)).To(Succeed())
		f.eventuallyDecided(ctx, "manual", clusters)
	})
})
