package workagent_test

import (
	"context"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/work/agent/appliedwork"
)

// oldHubHash is the hash of a hub the agent was joined to before.
var oldHubHash = appliedwork.HubHash("https://old-hub.example:6443")

// staleAppliedWork creates what the managed cluster holds after the agent
// moved from the old hub: that hub's AppliedManifestWork for work, owning
// the ConfigMaps named in ns (created, or owned besides their owners when
// they exist). It carries another agent's ID, so that the agent leaves it
// alone until activate hands it over: the record is complete before the
// grace period starts.
func staleAppliedWork(ctx context.Context, work, ns string, configMaps ...string) *workv1.AppliedManifestWork {
	GinkgoHelper()
	amw := &workv1.AppliedManifestWork{
		ObjectMeta: metav1.ObjectMeta{Name: appliedwork.Name(oldHubHash, work), Finalizers: []string{workv1.AppliedManifestWorkFinalizer}},
		Spec:       workv1.AppliedManifestWorkSpec{HubHash: oldHubHash, AgentID: "held-" + clusterName, ManifestWorkName: work},
	}
	Expect(managed.Create(ctx, amw)).To(Succeed())
	var applied []workv1.AppliedManifestResourceMeta
	for _, n := range configMaps {
		var cm *corev1.ConfigMap
		// The agent may be writing the ConfigMap at the same moment.
		Eventually(func() error {
			var err error
			cm, err = getConfigMap(ctx, ns, n)
			if apierrors.IsNotFound(err) {
				cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: n, OwnerReferences: []metav1.OwnerReference{appliedwork.Owner(amw)}}}
				return managed.Create(ctx, cm)
			}
			if err != nil {
				return err
			}
			cm.OwnerReferences = append(cm.OwnerReferences, appliedwork.Owner(amw))
			return managed.Update(ctx, cm)
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		applied = append(applied, workv1.AppliedManifestResourceMeta{
			ResourceIdentifier: workv1.ResourceIdentifier{Resource: "configmaps", Namespace: ns, Name: n}, Version: "v1", UID: string(cm.UID)})
	}
	amw.Status.AppliedResources = applied
	Expect(managed.Status().Update(ctx, amw)).To(Succeed())
	return amw
}

// activate hands the stale AppliedManifestWork over to the suite's agent.
func activate(ctx context.Context, amw *workv1.AppliedManifestWork) {
	GinkgoHelper()
	Eventually(func() error {
		if err := managed.Get(ctx, client.ObjectKeyFromObject(amw), amw); err != nil {
			return err
		}
		amw.Spec.AgentID = clusterName
		return managed.Update(ctx, amw)
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}

// ownerNames are the names of the ConfigMap's owners.
func ownerNames(ctx context.Context, ns, name string) []string {
	GinkgoHelper()
	cm, err := getConfigMap(ctx, ns, name)
	Expect(err).NotTo(HaveOccurred())
	var out []string
	for _, ref := range cm.OwnerReferences {
		out = append(out, ref.Name)
	}
	return slices.Sorted(slices.Values(out))
}

var _ = Describe("AppliedManifestWorks of another hub", func() {
	It("evicts one after the grace period: what only it owns goes, what a work of this hub applies stays", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		createWork(ctx, w, workv1.ManifestWorkSpec{}, configMap(ns, "shared", map[string]any{"a": "1"}))
		expectWorkCondition(ctx, w, workv1.WorkAvailable, metav1.ConditionTrue)
		current := appliedwork.Name(appliedwork.HubHash(hubCluster.Config.Host), w)
		// The old hub had a work of the same name: its record is evicted
		// all the same, as the api says.
		stale := staleAppliedWork(ctx, w, ns, "only", "shared")
		Expect(ownerNames(ctx, ns, "shared")).To(ConsistOf(current, stale.Name))
		activate(ctx, stale)

		expectEvicted(ctx, stale, ns, "only")
		Expect(ownerNames(ctx, ns, "shared")).To(Equal([]string{current}))
		expectWorkCondition(ctx, w, workv1.WorkAvailable, metav1.ConditionTrue)
	})

	It("keeps what a deleted work of this hub applied only until the other hub's record is evicted", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		createWork(ctx, w, workv1.ManifestWorkSpec{}, configMap(ns, "shared", map[string]any{"a": "1"}))
		expectWorkCondition(ctx, w, workv1.WorkAvailable, metav1.ConditionTrue)
		stale := staleAppliedWork(ctx, w, ns, "shared")

		deleteWork(ctx, w)
		Expect(ownerNames(ctx, ns, "shared")).To(Equal([]string{stale.Name}), "still owned by the other hub's record")
		activate(ctx, stale)
		expectGone(ctx, ns, "shared")
		expectAppliedWorkGone(ctx, stale)
	})
})
