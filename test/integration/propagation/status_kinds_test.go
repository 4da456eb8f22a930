package propagation_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubectl/pkg/polymorphichelpers"
	"k8s.io/utils/ptr"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/aggregate"
	"github.com/corral-dev/corral/propagation/hub/distribute"
)

// kindCase is one aggregated kind: its template, what a cluster whose
// object is done feeds back, and what the template's status must say once
// both clusters did.
type kindCase struct {
	gvk      schema.GroupVersionKind
	resource string
	template func(ns string) client.Object
	// done is what a cluster feeds back when its object is done.
	done []workv1.FeedbackValue
	// summed are status fields and their values once both clusters are
	// done.
	summed map[string]any
	// kubectl: kubectl has a rollout status viewer for the kind.
	kubectl bool
}

var _ = Describe("aggregated status per kind", Ordered, func() {
	BeforeAll(startHubHalf)

	now := metav1.NewTime(time.Now().UTC().Truncate(time.Second))
	cases := []kindCase{
		{
			gvk: appsv1.SchemeGroupVersion.WithKind("StatefulSet"), resource: "statefulsets", kubectl: true,
			template: func(ns string) client.Object {
				return &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}, Spec: appsv1.StatefulSetSpec{
					Replicas: ptr.To[int32](2), ServiceName: "web", Selector: webSelector(), Template: webPod()}}
			},
			done: append(generations(), intValue("replicas", 2), intValue("readyReplicas", 2), intValue("currentReplicas", 2),
				intValue("updatedReplicas", 2), intValue("availableReplicas", 2),
				stringValue(aggregate.FeedbackCurrentRevision, "web-1"), stringValue(aggregate.FeedbackUpdateRevision, "web-1")),
			summed: map[string]any{"replicas": int64(4), "readyReplicas": int64(4), "updatedReplicas": int64(4),
				"availableReplicas": int64(4), "currentRevision": "web-1", "updateRevision": "web-1"},
		},
		{
			gvk: appsv1.SchemeGroupVersion.WithKind("DaemonSet"), resource: "daemonsets", kubectl: true,
			template: func(ns string) client.Object {
				return &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}, Spec: appsv1.DaemonSetSpec{
					Selector: webSelector(), Template: webPod()}}
			},
			done: append(generations(), intValue("desiredNumberScheduled", 3), intValue("currentNumberScheduled", 3),
				intValue("numberReady", 3), intValue("updatedNumberScheduled", 3), intValue("numberAvailable", 3)),
			summed: map[string]any{"desiredNumberScheduled": int64(6), "currentNumberScheduled": int64(6), "numberReady": int64(6),
				"updatedNumberScheduled": int64(6), "numberAvailable": int64(6)},
		},
		{
			gvk: appsv1.SchemeGroupVersion.WithKind("ReplicaSet"), resource: "replicasets",
			template: func(ns string) client.Object {
				return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}, Spec: appsv1.ReplicaSetSpec{
					Replicas: ptr.To[int32](2), Selector: webSelector(), Template: webPod()}}
			},
			done: append(generations(), intValue("replicas", 2), intValue("fullyLabeledReplicas", 2),
				intValue("readyReplicas", 2), intValue("availableReplicas", 2)),
			summed: map[string]any{"replicas": int64(4), "fullyLabeledReplicas": int64(4), "readyReplicas": int64(4), "availableReplicas": int64(4)},
		},
		{
			gvk: batchv1.SchemeGroupVersion.WithKind("Job"), resource: "jobs",
			template: func(ns string) client.Object {
				pod := webPod()
				pod.Spec.RestartPolicy = corev1.RestartPolicyNever
				return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}, Spec: batchv1.JobSpec{Template: pod}}
			},
			done: []workv1.FeedbackValue{revisionValue(1), intValue(aggregate.FeedbackGeneration, 1), intValue("succeeded", 1),
				stringValue(aggregate.FeedbackComplete, "True"), stringValue(aggregate.FeedbackStartTime, now.Format(time.RFC3339)),
				stringValue(aggregate.FeedbackCompletionTime, now.Format(time.RFC3339))},
			summed: map[string]any{"succeeded": int64(2), "startTime": now.Format(time.RFC3339), "completionTime": now.Format(time.RFC3339)},
		},
	}
	for _, tc := range cases {
		It("sums two clusters' "+tc.gvk.Kind+" status into the template, done only once both are", func(ctx context.Context) {
			ns := freshNamespace(ctx)
			c1, c2 := clusterNamespace(ctx), clusterNamespace(ctx)
			decide(ctx, ns, "all", c1, c2)
			Expect(c.Create(ctx, tc.template(ns))).To(Succeed())
			Expect(c.Create(ctx, newPropagation(ns, "web", nil,
				v1alpha1.ResourceSelector{Group: tc.gvk.Group, Version: tc.gvk.Version, Kind: tc.gvk.Kind, Name: "web"}))).To(Succeed())
			work := distribute.WorkName(ns, "web", 0)
			Eventually(worksOf).WithContext(ctx).WithArguments(ns, "web").WithTimeout(eventually).WithPolling(poll).
				Should(Equal(map[string]string{c1: "1", c2: "1"}))
			rm := workv1.ManifestResourceMeta{Group: tc.gvk.Group, Version: tc.gvk.Version, Kind: tc.gvk.Kind, Resource: tc.resource, Namespace: ns, Name: "web"}

			By("one cluster done, the other silent: not done on the hub")
			feed(ctx, c1, work, rm, tc.done)
			Eventually(func(g Gomega) {
				u := template(ctx, g, tc.gvk, ns)
				status, _, _ := unstructured.NestedMap(u.Object, "status")
				g.Expect(status).NotTo(BeEmpty(), "no status aggregated")
				g.Expect(finished(g, tc, u)).To(BeFalse())
			}).WithTimeout(eventually).WithPolling(poll).Should(Succeed())

			By("both clusters done: the sums, and done as kubectl reads it")
			feed(ctx, c2, work, rm, tc.done)
			Eventually(func(g Gomega) {
				u := template(ctx, g, tc.gvk, ns)
				for field, want := range tc.summed {
					got, found, err := unstructured.NestedFieldNoCopy(u.Object, "status", field)
					g.Expect(err).NotTo(HaveOccurred())
					g.Expect(found).To(BeTrue(), "status.%s", field)
					g.Expect(got).To(BeEquivalentTo(want), "status.%s", field)
				}
				g.Expect(finished(g, tc, u)).To(BeTrue())
			}).WithTimeout(eventually).WithPolling(poll).Should(Succeed())
		})
	}

	It("says a Job failed on the hub once every cluster's finished and one failed", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		c1, c2 := clusterNamespace(ctx), clusterNamespace(ctx)
		decide(ctx, ns, "all", c1, c2)
		jobCase := cases[len(cases)-1]
		Expect(c.Create(ctx, jobCase.template(ns))).To(Succeed())
		Expect(c.Create(ctx, newPropagation(ns, "web", nil,
			v1alpha1.ResourceSelector{Group: "batch", Version: "v1", Kind: "Job", Name: "web"}))).To(Succeed())
		work := distribute.WorkName(ns, "web", 0)
		Eventually(worksOf).WithContext(ctx).WithArguments(ns, "web").WithTimeout(eventually).WithPolling(poll).
			Should(Equal(map[string]string{c1: "1", c2: "1"}))
		rm := workv1.ManifestResourceMeta{Group: "batch", Version: "v1", Kind: "Job", Resource: "jobs", Namespace: ns, Name: "web"}
		feed(ctx, c1, work, rm, jobCase.done)
		feed(ctx, c2, work, rm, []workv1.FeedbackValue{revisionValue(1), intValue(aggregate.FeedbackGeneration, 1), intValue("failed", 1),
			stringValue(aggregate.FeedbackFailed, "True"), stringValue(aggregate.FeedbackFailedReason, "BackoffLimitExceeded"),
			stringValue(aggregate.FeedbackStartTime, now.Format(time.RFC3339))})
		Eventually(func(g Gomega) {
			got := &batchv1.Job{}
			g.Expect(c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, got)).To(Succeed())
			g.Expect(got.Status.Failed).To(BeEquivalentTo(1))
			g.Expect(got.Status.Succeeded).To(BeEquivalentTo(1))
			g.Expect(got.Status.Conditions).To(ContainElement(And(HaveField("Type", batchv1.JobFailed),
				HaveField("Status", corev1.ConditionTrue), HaveField("Reason", "BackoffLimitExceeded"))))
		}).WithTimeout(eventually).WithPolling(poll).Should(Succeed())
	})
})

// finished says whether the template is done: as `kubectl rollout
// status` says for a kind it has a viewer of; a ReplicaSet when its
// observedGeneration caught up; a Job when it is Complete.
func finished(g Gomega, tc kindCase, u *unstructured.Unstructured) bool {
	if tc.kubectl {
		viewer, err := polymorphichelpers.StatusViewerFor(tc.gvk.GroupKind())
		g.Expect(err).NotTo(HaveOccurred())
		_, done, err := viewer.Status(u, 0)
		g.Expect(err).NotTo(HaveOccurred())
		return done
	}
	if tc.gvk.Kind == "Job" {
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, c := range conds {
			if m, ok := c.(map[string]any); ok && m["type"] == string(batchv1.JobComplete) && m["status"] == "True" {
				return true
			}
		}
		return false
	}
	observed, _, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration")
	return observed == u.GetGeneration()
}

// template reads the hub template ns/web of gvk.
func template(ctx context.Context, g Gomega, gvk schema.GroupVersionKind, ns string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	g.Expect(c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, u)).To(Succeed())
	return u
}

// generations are the fed-back revision label and generations of an
// object at generation 1 that observed it.
func generations() []workv1.FeedbackValue {
	return []workv1.FeedbackValue{revisionValue(1), intValue(aggregate.FeedbackGeneration, 1), intValue(aggregate.FeedbackObservedGeneration, 1)}
}

func webSelector() *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
}

func webPod() corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
	}
}
