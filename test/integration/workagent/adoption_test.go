package workagent_test

import (
	"context"
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/work/adoption"
)

// withPolicy is a work spec whose annotation carries p.
func adoptionWork(ctx context.Context, w string, p adoption.Policy, configs []workv1.ManifestConfigOption, objs ...obj) {
	GinkgoHelper()
	spec := workv1.ManifestWorkSpec{ManifestConfigs: configs}
	spec.Workload.Manifests = manifests(objs...)
	work := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: clusterName, Name: w, Annotations: map[string]string{adoption.Annotation: p.String()}}, Spec: spec}
	Expect(hub.Create(ctx, work)).To(Succeed())
}

// createByHand makes a ConfigMap on the managed cluster, as someone other
// than the agent.
func createByHand(ctx context.Context, ns, name string, data map[string]string) {
	GinkgoHelper()
	Expect(managed.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data})).To(Succeed())
}

// editByHand sets a key of a ConfigMap on the managed cluster.
func editByHand(ctx context.Context, ns, name, key, value string) {
	GinkgoHelper()
	Eventually(func() error {
		cm, err := getConfigMap(ctx, ns, name)
		if err != nil {
			return err
		}
		cm.Data[key] = value
		return managed.Update(ctx, cm)
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}

// field is one adoption.Field with JSON values.
func field(path string, hub, cluster any) adoption.Field {
	h, _ := json.Marshal(hub)
	c, _ := json.Marshal(cluster)
	return adoption.Field{Path: path, Hub: h, Cluster: c}
}

// expectVerdict waits for manifest ordinal's Drifted condition to have
// status and reason, and returns it.
func expectVerdict(ctx context.Context, w string, ordinal int, status metav1.ConditionStatus, reason string) *metav1.Condition {
	GinkgoHelper()
	var got *metav1.Condition
	Eventually(func(g Gomega) {
		got = manifestCondition(ctx, w, ordinal, adoption.ConditionType)
		g.Expect(got).NotTo(BeNil())
		g.Expect(got.Reason).To(Equal(reason), got.Message)
		g.Expect(got.Status).To(Equal(status))
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	return got
}

var _ = Describe("adoption", func() {
	It("takeOver IfNoDiff leaves an object that differs, reporting the fields, and takes over one that matches", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		createByHand(ctx, ns, "differs", map[string]string{"a": "theirs", "b": "same"})
		createByHand(ctx, ns, "matches", map[string]string{"a": "ours"})
		adoptionWork(ctx, w, adoption.Policy{TakeOver: adoption.TakeOverIfNoDiff}, nil,
			configMap(ns, "differs", map[string]any{"a": "ours", "b": "same"}), configMap(ns, "matches", map[string]any{"a": "ours"}))

		c := expectVerdict(ctx, w, 0, metav1.ConditionTrue, adoption.ReasonNotAdopted)
		Expect(adoption.Fields(c.Message)).To(Equal([]adoption.Field{field(".data.a", "ours", "theirs")}))
		applied := manifestCondition(ctx, w, 0, workv1.ManifestApplied)
		Expect(applied.Status).To(Equal(metav1.ConditionFalse))
		Expect(applied.Reason).To(Equal(adoption.ReasonNotAdopted))
		expectVerdict(ctx, w, 1, metav1.ConditionFalse, adoption.ReasonInSync)
		Eventually(func(g Gomega) {
			cm, err := getConfigMap(ctx, ns, "matches")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(cm.OwnerReferences).To(HaveLen(1), "taken over: owned by the AppliedManifestWork")
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		cm, err := getConfigMap(ctx, ns, "differs")
		Expect(err).NotTo(HaveOccurred())
		Expect(cm.Data).To(Equal(map[string]string{"a": "theirs", "b": "same"}))
		Expect(cm.OwnerReferences).To(BeEmpty())

		expectWorkCondition(ctx, w, adoption.WorkConditionType, metav1.ConditionTrue)

		By("the refused object is not the work's: not recorded as applied")
		Eventually(func(g Gomega) {
			amws := &workv1.AppliedManifestWorkList{}
			g.Expect(managed.List(ctx, amws)).To(Succeed())
			var names []string
			for _, amw := range amws.Items {
				if amw.Spec.ManifestWorkName == w {
					for _, r := range amw.Status.AppliedResources {
						names = append(names, r.Name)
					}
				}
			}
			g.Expect(names).To(Equal([]string{"matches"}))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		By("made to match on the cluster: taken over then")
		editByHand(ctx, ns, "differs", "a", "ours")
		expectVerdict(ctx, w, 0, metav1.ConditionFalse, adoption.ReasonInSync)
		expectWorkCondition(ctx, w, workv1.WorkApplied, metav1.ConditionTrue)
	})

	It("takeOver Never leaves even a matching object; Always takes a differing one over", func(ctx context.Context) {
		ns := createNamespace(ctx)
		createByHand(ctx, ns, "never", map[string]string{"a": "ours"})
		createByHand(ctx, ns, "always", map[string]string{"a": "theirs"})
		never, always := name("never"), name("always")
		labelled := namespace(ns)
		labelled["metadata"].(obj)["labels"] = obj{"team": "a"}
		nsWork := name("namespace")
		adoptionWork(ctx, nsWork, adoption.Policy{TakeOver: adoption.TakeOverNever}, nil, labelled)
		adoptionWork(ctx, never, adoption.Policy{TakeOver: adoption.TakeOverNever}, nil, configMap(ns, "never", map[string]any{"a": "ours"}))
		adoptionWork(ctx, always, adoption.Policy{TakeOver: adoption.TakeOverAlways}, nil, configMap(ns, "always", map[string]any{"a": "ours"}))
		By("a Namespace the cluster has is taken over whatever the policy: it is shared")
		expectVerdict(ctx, nsWork, 0, metav1.ConditionFalse, adoption.ReasonInSync)
		Eventually(func(g Gomega) {
			got := &corev1.Namespace{}
			g.Expect(managed.Get(ctx, client.ObjectKey{Name: ns}, got)).To(Succeed())
			g.Expect(got.Labels).To(HaveKeyWithValue("team", "a"))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		expectVerdict(ctx, never, 0, metav1.ConditionTrue, adoption.ReasonNotAdopted)
		expectVerdict(ctx, always, 0, metav1.ConditionFalse, adoption.ReasonInSync)
		Eventually(func(g Gomega) {
			cm, err := getConfigMap(ctx, ns, "always")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(cm.Data).To(HaveKeyWithValue("a", "ours"))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		cm, err := getConfigMap(ctx, ns, "never")
		Expect(err).NotTo(HaveOccurred())
		Expect(cm.OwnerReferences).To(BeEmpty())

		By("deleting the work leaves the object it refused to take over")
		deleteWork(ctx, never)
		cm, err = getConfigMap(ctx, ns, "never")
		Expect(err).NotTo(HaveOccurred())
		Expect(cm.Data).To(Equal(map[string]string{"a": "ours"}))
	})

	It("drift Always puts a change back and reports it with both values", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		adoptionWork(ctx, w, adoption.Policy{Drift: adoption.DriftAlways}, nil, configMap(ns, "cm", map[string]any{"a": "hub"}))
		expectVerdict(ctx, w, 0, metav1.ConditionFalse, adoption.ReasonInSync)
		editByHand(ctx, ns, "cm", "a", "edited")
		c := expectVerdict(ctx, w, 0, metav1.ConditionFalse, adoption.ReasonPutBack)
		Expect(adoption.Fields(c.Message)).To(Equal([]adoption.Field{field(".data.a", "hub", "edited")}))
		Eventually(func(g Gomega) {
			cm, err := getConfigMap(ctx, ns, "cm")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(cm.Data).To(HaveKeyWithValue("a", "hub"))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	})

	It("drift IfNotDrifted leaves a change and reports it since first seen; a new manifest is applied over it", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		adoptionWork(ctx, w, adoption.Policy{Drift: adoption.DriftIfNotDrifted}, nil, configMap(ns, "cm", map[string]any{"a": "hub", "b": "hub"}))
		expectVerdict(ctx, w, 0, metav1.ConditionFalse, adoption.ReasonInSync)
		editByHand(ctx, ns, "cm", "a", "edited")
		first := expectVerdict(ctx, w, 0, metav1.ConditionTrue, adoption.ReasonDrifted)
		Expect(adoption.Fields(first.Message)).To(Equal([]adoption.Field{field(".data.a", "hub", "edited")}))
		Expect(manifestCondition(ctx, w, 0, workv1.ManifestApplied).Status).To(Equal(metav1.ConditionTrue), "applied: the policy says to leave it")

		By("another edit: still reported, since the first")
		editByHand(ctx, ns, "cm", "b", "edited")
		Eventually(func(g Gomega) {
			c := manifestCondition(ctx, w, 0, adoption.ConditionType)
			g.Expect(adoption.Fields(c.Message)).To(HaveLen(2))
			g.Expect(c.LastTransitionTime).To(Equal(first.LastTransitionTime))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		cm, err := getConfigMap(ctx, ns, "cm")
		Expect(err).NotTo(HaveOccurred())
		Expect(cm.Data).To(Equal(map[string]string{"a": "edited", "b": "edited"}))

		By("a new manifest from the hub: applied over the change")
		setManifests(ctx, w, configMap(ns, "cm", map[string]any{"a": "hub2", "b": "hub2"}))
		expectVerdict(ctx, w, 0, metav1.ConditionFalse, adoption.ReasonInSync)
		cm, err = getConfigMap(ctx, ns, "cm")
		Expect(err).NotTo(HaveOccurred())
		Expect(cm.Data).To(Equal(map[string]string{"a": "hub2", "b": "hub2"}))
	})

	It("ReportDiff, with ReadOnly manifests, changes nothing and reports what would", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		createByHand(ctx, ns, "there", map[string]string{"a": "theirs"})
		readOnly := func(n string) workv1.ManifestConfigOption {
			return workv1.ManifestConfigOption{ResourceIdentifier: workv1.ResourceIdentifier{Resource: "configmaps", Namespace: ns, Name: n},
				UpdateStrategy: &workv1.UpdateStrategy{Type: workv1.UpdateStrategyTypeReadOnly}}
		}
		adoptionWork(ctx, w, adoption.Policy{Mode: adoption.ModeReportDiff}, []workv1.ManifestConfigOption{readOnly("there"), readOnly("absent")},
			configMap(ns, "there", map[string]any{"a": "ours"}), configMap(ns, "absent", map[string]any{"a": "ours"}))
		c := expectVerdict(ctx, w, 0, metav1.ConditionTrue, adoption.ReasonWouldChange)
		Expect(adoption.Fields(c.Message)).To(Equal([]adoption.Field{field(".data.a", "ours", "theirs")}))
		expectVerdict(ctx, w, 1, metav1.ConditionTrue, adoption.ReasonWouldCreate)
		cm, err := getConfigMap(ctx, ns, "there")
		Expect(err).NotTo(HaveOccurred())
		Expect(cm.Data).To(Equal(map[string]string{"a": "theirs"}))
		Expect(cm.OwnerReferences).To(BeEmpty())
		_, err = getConfigMap(ctx, ns, "absent")
		Expect(err).To(MatchError(ContainSubstring("not found")))

		By("created by hand as the manifest says: in sync")
		createByHand(ctx, ns, "absent", map[string]string{"a": "ours"})
		expectVerdict(ctx, w, 1, metav1.ConditionFalse, adoption.ReasonInSync)
	})

	It("leaves ignoreFields alone: a member's change to them is kept, and is not drift", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		cfg := ssa(ns, "cm", workv1.ServerSideApplyConfig{Force: true, IgnoreFields: []workv1.IgnoreField{
			{Condition: workv1.IgnoreFieldsConditionOnSpokePresent, JSONPaths: []string{".data.replicas"}}}})
		adoptionWork(ctx, w, adoption.Policy{Drift: adoption.DriftAlways}, []workv1.ManifestConfigOption{cfg},
			configMap(ns, "cm", map[string]any{"replicas": "3", "a": "hub"}))
		expectVerdict(ctx, w, 0, metav1.ConditionFalse, adoption.ReasonInSync)

		By("a member's controller changes replicas, someone else a: a is put back and reported, replicas neither")
		applyByHand(ctx, ns, "cm", map[string]string{"replicas": "7"})
		editByHand(ctx, ns, "cm", "a", "edited")
		c := expectVerdict(ctx, w, 0, metav1.ConditionFalse, adoption.ReasonPutBack)
		Expect(adoption.Fields(c.Message)).To(Equal([]adoption.Field{field(".data.a", "hub", "edited")}))
		Eventually(func(g Gomega) {
			cm, err := getConfigMap(ctx, ns, "cm")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(cm.Data).To(Equal(map[string]string{"replicas": "7", "a": "hub"}))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	})
})
