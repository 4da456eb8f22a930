package workagent_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/work/agent/apply"
)

var _ = Describe("Applying a ManifestWork", func() {
	It("creates a namespace before the ConfigMap in it, reports both, and records them in the AppliedManifestWork", func(ctx context.Context) {
		ns, w := name("ns"), name("work")
		// The ConfigMap comes first in the work: the Namespace must be applied first anyway.
		createWork(ctx, w, workv1.ManifestWorkSpec{}, configMap(ns, "cm", map[string]any{"a": "1"}), namespace(ns))
		expectWorkCondition(ctx, w, workv1.WorkApplied, metav1.ConditionTrue)
		expectWorkCondition(ctx, w, workv1.WorkAvailable, metav1.ConditionTrue)
		cm, err := getConfigMap(ctx, ns, "cm")
		Expect(err).NotTo(HaveOccurred())
		Expect(cm.Data).To(HaveKeyWithValue("a", "1"))

		got := work(ctx, w)
		Expect(got.Finalizers).To(ContainElement(workv1.ManifestWorkFinalizer))
		Expect(got.Status.ResourceStatus.Manifests).To(HaveLen(2))
		for _, m := range got.Status.ResourceStatus.Manifests {
			Expect(m.Conditions).To(ContainElements(
				HaveField("Type", workv1.ManifestApplied), HaveField("Type", workv1.ManifestAvailable)))
		}
		Expect(got.Status.ResourceStatus.Manifests[0].ResourceMeta).To(Equal(workv1.ManifestResourceMeta{
			Ordinal: 0, Version: "v1", Kind: "ConfigMap", Resource: "configmaps", Name: "cm", Namespace: ns}))

		amws := &workv1.AppliedManifestWorkList{}
		Expect(managed.List(ctx, amws)).To(Succeed())
		var amw *workv1.AppliedManifestWork
		for i := range amws.Items {
			if amws.Items[i].Spec.ManifestWorkName == w {
				amw = &amws.Items[i]
			}
		}
		Expect(amw).NotTo(BeNil())
		Expect(amw.Name).To(HaveSuffix("-" + w))
		Expect(amw.Status.AppliedResources).To(ConsistOf(
			HaveField("ResourceIdentifier", workv1.ResourceIdentifier{Resource: "configmaps", Name: "cm", Namespace: ns}),
			HaveField("ResourceIdentifier", workv1.ResourceIdentifier{Resource: "namespaces", Name: ns}),
		))
		Expect(cm.OwnerReferences).To(ContainElement(HaveField("UID", amw.UID)))
	})

	It("puts back a change and a deletion made on the managed cluster (Update)", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		createWork(ctx, w, workv1.ManifestWorkSpec{}, configMap(ns, "cm", map[string]any{"a": "1"}))
		expectWorkCondition(ctx, w, workv1.WorkApplied, metav1.ConditionTrue)

		cm, err := getConfigMap(ctx, ns, "cm")
		Expect(err).NotTo(HaveOccurred())
		corrected := apply.DriftCorrections()
		cm.Data["a"] = "changed"
		Expect(managed.Update(ctx, cm)).To(Succeed())
		Eventually(func(g Gomega) {
			cm, err := getConfigMap(ctx, ns, "cm")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(cm.Data).To(HaveKeyWithValue("a", "1"))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		// Counted just after the write the Get above may already see.
		Eventually(apply.DriftCorrections).WithTimeout(timeout).Should(BeNumerically(">", corrected), "the correction is counted")

		corrected = apply.DriftCorrections()
		Expect(managed.Delete(ctx, cm)).To(Succeed())
		Eventually(func(g Gomega) {
			got, err := getConfigMap(ctx, ns, "cm")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got.UID).NotTo(Equal(cm.UID))
			g.Expect(got.Data).To(HaveKeyWithValue("a", "1"))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		Eventually(apply.DriftCorrections).WithTimeout(timeout).Should(BeNumerically(">", corrected), "the deletion put back is counted")
	})

	It("removes a data key dropped from the work, and keeps a label set on the managed cluster (Update)", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		labelled := func(o obj) obj {
			o["metadata"].(obj)["labels"] = obj{"ours": "1"}
			return o
		}
		createWork(ctx, w, workv1.ManifestWorkSpec{}, labelled(configMap(ns, "cm", map[string]any{"a": "1", "b": "1"})))
		expectWorkCondition(ctx, w, workv1.WorkApplied, metav1.ConditionTrue)
		cm, err := getConfigMap(ctx, ns, "cm")
		Expect(err).NotTo(HaveOccurred())
		cm.Labels["theirs"] = "1"
		Expect(managed.Update(ctx, cm)).To(Succeed())

		setManifests(ctx, w, labelled(configMap(ns, "cm", map[string]any{"a": "1"})))
		Eventually(func(g Gomega) {
			cm, err := getConfigMap(ctx, ns, "cm")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(cm.Data).To(Equal(map[string]string{"a": "1"}))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		cm, err = getConfigMap(ctx, ns, "cm")
		Expect(err).NotTo(HaveOccurred())
		Expect(cm.Labels).To(Equal(map[string]string{"ours": "1", "theirs": "1"}), "labels merge as in OCM")
	})

	It("leaves alone the fields the API server defaults: no update, no drift counted (Update)", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		// The feedback shows when the agent has read the Deployment after it changed.
		createWork(ctx, w, workv1.ManifestWorkSpec{ManifestConfigs: []workv1.ManifestConfigOption{{
			ResourceIdentifier: workv1.ResourceIdentifier{Group: "apps", Resource: "deployments", Namespace: ns, Name: "app"},
			FeedbackRules: []workv1.FeedbackRule{{Type: workv1.JSONPathsType,
				JsonPaths: []workv1.JsonPath{{Name: "touched", Path: ".metadata.labels.touched"}}}},
		}}}, deployment(ns, "app"))
		expectWorkCondition(ctx, w, workv1.WorkApplied, metav1.ConditionTrue)

		d := &appsv1.Deployment{}
		Expect(managed.Get(ctx, client.ObjectKey{Namespace: ns, Name: "app"}, d)).To(Succeed())
		Expect(d.Spec.RevisionHistoryLimit).NotTo(BeNil(), "the server defaulted fields the manifest leaves out")
		corrected := apply.DriftCorrections()
		d.Labels = map[string]string{"touched": "yes"}
		Expect(managed.Update(ctx, d)).To(Succeed())
		Eventually(func(g Gomega) {
			fb := work(ctx, w).Status.ResourceStatus.Manifests[0].StatusFeedbacks.Values
			g.Expect(fb).To(ConsistOf(HaveField("Value.String", HaveValue(Equal("yes")))))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		got := &appsv1.Deployment{}
		Expect(managed.Get(ctx, client.ObjectKey{Namespace: ns, Name: "app"}, got)).To(Succeed())
		Expect(got.ResourceVersion).To(Equal(d.ResourceVersion), "the agent wrote nothing")
		Expect(apply.DriftCorrections()).To(Equal(corrected))
	})

	It("applies a changed manifest", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		createWork(ctx, w, workv1.ManifestWorkSpec{}, configMap(ns, "cm", map[string]any{"a": "1"}))
		expectWorkCondition(ctx, w, workv1.WorkApplied, metav1.ConditionTrue)
		setManifests(ctx, w, configMap(ns, "cm", map[string]any{"a": "2"}))
		Eventually(func(g Gomega) {
			cm, err := getConfigMap(ctx, ns, "cm")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(cm.Data).To(HaveKeyWithValue("a", "2"))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	})

	It("leaves a change made on the managed cluster alone (CreateOnly)", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		createWork(ctx, w, workv1.ManifestWorkSpec{ManifestConfigs: []workv1.ManifestConfigOption{{
			ResourceIdentifier: workv1.ResourceIdentifier{Resource: "configmaps", Name: "cm", Namespace: ns},
			UpdateStrategy:     &workv1.UpdateStrategy{Type: workv1.UpdateStrategyTypeCreateOnly},
		}}}, configMap(ns, "cm", map[string]any{"a": "1"}), configMap(ns, "marker", map[string]any{"a": "1"}))
		expectWorkCondition(ctx, w, workv1.WorkApplied, metav1.ConditionTrue)

		cm, err := getConfigMap(ctx, ns, "cm")
		Expect(err).NotTo(HaveOccurred())
		cm.Data["a"] = "changed"
		Expect(managed.Update(ctx, cm)).To(Succeed())
		// The marker (Update strategy) is put back; by then the agent has seen both changes.
		marker, err := getConfigMap(ctx, ns, "marker")
		Expect(err).NotTo(HaveOccurred())
		marker.Data["a"] = "changed"
		Expect(managed.Update(ctx, marker)).To(Succeed())
		Eventually(func(g Gomega) {
			got, err := getConfigMap(ctx, ns, "marker")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got.Data).To(HaveKeyWithValue("a", "1"))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		got, err := getConfigMap(ctx, ns, "cm")
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Data).To(HaveKeyWithValue("a", "changed"))
	})

	It("reads but never writes a ReadOnly manifest", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		readOnly := func(n string) workv1.ManifestConfigOption {
			return workv1.ManifestConfigOption{
				ResourceIdentifier: workv1.ResourceIdentifier{Resource: "configmaps", Name: n, Namespace: ns},
				UpdateStrategy:     &workv1.UpdateStrategy{Type: workv1.UpdateStrategyTypeReadOnly},
				FeedbackRules:      []workv1.FeedbackRule{{Type: workv1.JSONPathsType, JsonPaths: []workv1.JsonPath{{Name: "a", Path: ".data.a"}}}},
			}
		}
		Expect(managed.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "exists"}, Data: map[string]string{"a": "spoke"}})).To(Succeed())
		createWork(ctx, w, workv1.ManifestWorkSpec{ManifestConfigs: []workv1.ManifestConfigOption{readOnly("exists"), readOnly("missing")}},
			configMap(ns, "exists", map[string]any{"a": "hub"}), configMap(ns, "missing", map[string]any{"a": "hub"}))
		Eventually(func(g Gomega) {
			g.Expect(manifestCondition(ctx, w, 0, workv1.ManifestAvailable)).To(HaveField("Status", metav1.ConditionTrue))
			g.Expect(manifestCondition(ctx, w, 1, workv1.ManifestAvailable)).To(HaveField("Status", metav1.ConditionFalse))
			fb := work(ctx, w).Status.ResourceStatus.Manifests[0].StatusFeedbacks.Values
			g.Expect(fb).To(ConsistOf(HaveField("Name", "a")))
			g.Expect(*fb[0].Value.String).To(Equal("spoke"))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		cm, err := getConfigMap(ctx, ns, "exists")
		Expect(err).NotTo(HaveOccurred())
		Expect(cm.Data).To(HaveKeyWithValue("a", "spoke"))
		Expect(cm.OwnerReferences).To(BeEmpty())
		_, err = getConfigMap(ctx, ns, "missing")
		Expect(err).To(MatchError(ContainSubstring("not found")))

		By("the object changing on the managed cluster: the feedback follows, the object stays as changed")
		cm.Data["a"] = "spoke-changed"
		Expect(managed.Update(ctx, cm)).To(Succeed())
		Eventually(func(g Gomega) {
			fb := work(ctx, w).Status.ResourceStatus.Manifests[0].StatusFeedbacks.Values
			g.Expect(fb).To(ConsistOf(HaveField("Value.String", HaveValue(Equal("spoke-changed")))))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		cm, err = getConfigMap(ctx, ns, "exists")
		Expect(err).NotTo(HaveOccurred())
		Expect(cm.Data).To(HaveKeyWithValue("a", "spoke-changed"))
	})

	It("lets go of, but never deletes, an object whose manifest turns ReadOnly", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		createWork(ctx, w, workv1.ManifestWorkSpec{}, configMap(ns, "cm", map[string]any{"a": "hub"}))
		Eventually(func(g Gomega) {
			cm, err := getConfigMap(ctx, ns, "cm")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(cm.OwnerReferences).To(HaveLen(1))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		By("making the manifest ReadOnly")
		Eventually(func() error {
			mw := work(ctx, w)
			mw.Spec.ManifestConfigs = []workv1.ManifestConfigOption{{
				ResourceIdentifier: workv1.ResourceIdentifier{Resource: "configmaps", Name: "cm", Namespace: ns},
				UpdateStrategy:     &workv1.UpdateStrategy{Type: workv1.UpdateStrategyTypeReadOnly},
			}}
			return hub.Update(ctx, mw)
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		Eventually(func(g Gomega) {
			cm, err := getConfigMap(ctx, ns, "cm")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(cm.OwnerReferences).To(BeEmpty())
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		By("deleting the work: the object stays")
		deleteWork(ctx, w)
		cm, err := getConfigMap(ctx, ns, "cm")
		Expect(err).NotTo(HaveOccurred())
		Expect(cm.Data).To(HaveKeyWithValue("a", "hub"))
	})
})
