package registration_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/rand"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/testing/builder"
)

const timeout = 60 * time.Second

// newCluster creates a ManagedCluster with a fresh name and a 60 s lease,
// deleted after the spec.
func newCluster(ctx context.Context, accepted bool) string {
	return newClusterWithLease(ctx, accepted, 60)
}

func newClusterWithLease(ctx context.Context, accepted bool, leaseSeconds int32) string {
	name := "c-" + rand.String(6)
	mc := builder.Cluster(name).LeaseDurationSeconds(leaseSeconds)
	if accepted {
		mc.Accepted()
	}
	Expect(admin.Create(ctx, mc.Obj())).To(Succeed())
	deleteClusterAfter(name)
	return name
}

// deleteClusterAfter deletes ManagedCluster name when the spec ends.
func deleteClusterAfter(name string) {
	DeferCleanup(func(ctx context.Context) {
		_ = admin.Delete(ctx, &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: name}})
	})
}

func getCluster(ctx context.Context, name string) *clusterv1.ManagedCluster {
	mc := &clusterv1.ManagedCluster{}
	Expect(admin.Get(ctx, client.ObjectKey{Name: name}, mc)).To(Succeed())
	return mc
}

// expectCondition waits until cluster name has the condition of type
// condType with the given status and reason.
func expectCondition(ctx context.Context, name, condType string, status metav1.ConditionStatus, reason string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		mc := &clusterv1.ManagedCluster{}
		g.Expect(admin.Get(ctx, client.ObjectKey{Name: name}, mc)).To(Succeed())
		cond := meta.FindStatusCondition(mc.Status.Conditions, condType)
		g.Expect(cond).NotTo(BeNil(), "%s has no %s condition: %v", name, condType, mc.Status.Conditions)
		g.Expect(cond.Status).To(Equal(status), "%s's %s condition: %v", name, condType, cond)
		g.Expect(cond.Reason).To(Equal(reason), "%s's %s condition: %v", name, condType, cond)
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}

// expectAccepted waits until an admin's acceptance of name is reported.
func expectAccepted(ctx context.Context, name string) {
	GinkgoHelper()
	expectCondition(ctx, name, clusterv1.ManagedClusterConditionHubAccepted, metav1.ConditionTrue, "HubClusterAdminAccepted")
}

func setAccepted(ctx context.Context, name string, accepted bool) {
	mc := getCluster(ctx, name)
	patch := client.MergeFrom(mc.DeepCopy())
	mc.Spec.HubAcceptsClient = accepted
	Expect(admin.Patch(ctx, mc, patch)).To(Succeed())
}

func forbidden(err error) bool { return apierrors.IsForbidden(err) }

var _ = Describe("accepting a cluster", func() {
	It("creates its labelled namespace, its RBAC and its lease, and sets HubAcceptedManagedCluster", func(ctx context.Context) {
		name := newCluster(ctx, true)
		expectAccepted(ctx, name)

		mc := getCluster(ctx, name)
		Expect(mc.Finalizers).To(ContainElement(clusterv1.ManagedClusterFinalizer))
		ns := &corev1.Namespace{}
		Expect(admin.Get(ctx, client.ObjectKey{Name: name}, ns)).To(Succeed())
		Expect(ns.Labels).To(HaveKeyWithValue(clusterv1.ClusterNameLabelKey, name))
		lease := &coordinationv1.Lease{}
		Expect(admin.Get(ctx, client.ObjectKey{Namespace: name, Name: "managed-cluster-lease"}, lease)).To(Succeed())
		Expect(lease.Spec.RenewTime).NotTo(BeNil())

		role := "open-cluster-management:managedcluster:" + name
		Expect(admin.Get(ctx, client.ObjectKey{Name: role}, &rbacv1.ClusterRole{})).To(Succeed())
		Expect(admin.Get(ctx, client.ObjectKey{Name: role}, &rbacv1.ClusterRoleBinding{})).To(Succeed())
		Expect(admin.Get(ctx, client.ObjectKey{Namespace: name, Name: role + ":registration"}, &rbacv1.RoleBinding{})).To(Succeed())
	})

	It("lets the cluster's identity reach its own ManagedCluster, lease and works, and nothing of another cluster's", func(ctx context.Context) {
		mine, other := newCluster(ctx, true), newCluster(ctx, true)
		expectAccepted(ctx, mine)
		expectAccepted(ctx, other)
		agent := asCluster(mine)

		Eventually(func(g Gomega) {
			g.Expect(agent.Get(ctx, client.ObjectKey{Name: mine}, &clusterv1.ManagedCluster{})).To(Succeed())
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		By("updating its own status and lease, and listing its own works")
		mc := &clusterv1.ManagedCluster{}
		Expect(agent.Get(ctx, client.ObjectKey{Name: mine}, mc)).To(Succeed())
		patch := client.MergeFrom(mc.DeepCopy())
		meta.SetStatusCondition(&mc.Status.Conditions, metav1.Condition{Type: clusterv1.ManagedClusterConditionJoined, Status: metav1.ConditionTrue, Reason: "ManagedClusterJoined"})
		Expect(agent.Status().Patch(ctx, mc, patch)).To(Succeed())
		lease := &coordinationv1.Lease{}
		Expect(agent.Get(ctx, client.ObjectKey{Namespace: mine, Name: "managed-cluster-lease"}, lease)).To(Succeed())
		lease.Spec.RenewTime = &metav1.MicroTime{Time: time.Now()}
		Expect(agent.Update(ctx, lease)).To(Succeed())
		Expect(agent.List(ctx, &workv1.ManifestWorkList{}, client.InNamespace(mine))).To(Succeed())

		By("being refused everything of the other cluster")
		Expect(agent.Get(ctx, client.ObjectKey{Name: other}, &clusterv1.ManagedCluster{})).To(MatchError(forbidden, "forbidden"))
		Expect(agent.Get(ctx, client.ObjectKey{Namespace: other, Name: "managed-cluster-lease"}, &coordinationv1.Lease{})).To(MatchError(forbidden, "forbidden"))
		Expect(agent.List(ctx, &workv1.ManifestWorkList{}, client.InNamespace(other))).To(MatchError(forbidden, "forbidden"))
		Expect(agent.List(ctx, &clusterv1.ManagedClusterList{})).To(MatchError(forbidden, "forbidden"))

		Expect(agent.Delete(ctx, &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: other}})).To(MatchError(forbidden, "forbidden"))

		By("being refused what the hub admin decides")
		Expect(agent.List(ctx, &corev1.SecretList{}, client.InNamespace(mine))).To(MatchError(forbidden, "forbidden"))
	})

	It("leaves a cluster that was never accepted without namespace, RBAC or condition", func(ctx context.Context) {
		name := newCluster(ctx, false)
		Eventually(func() []string { return getCluster(ctx, name).Finalizers }).WithContext(ctx).WithTimeout(timeout).
			Should(ContainElement(clusterv1.ManagedClusterFinalizer))
		Consistently(func(g Gomega) {
			g.Expect(apierrors.IsNotFound(admin.Get(ctx, client.ObjectKey{Name: name}, &corev1.Namespace{}))).To(BeTrue())
			g.Expect(getCluster(ctx, name).Status.Conditions).To(BeEmpty())
		}).WithContext(ctx).WithTimeout(3 * time.Second).Should(Succeed())
		Expect(asCluster(name).Get(ctx, client.ObjectKey{Name: name}, &clusterv1.ManagedCluster{})).To(MatchError(forbidden, "forbidden"))
	})
})

var _ = Describe("accepting a cluster whose name is not its own", func() {
	It("refuses a name whose namespace exists and is another's: no label, no rights in it, and deleting the cluster leaves it", func(ctx context.Context) {
		name := "c-" + rand.String(6)
		Expect(admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})).To(Succeed())
		DeferCleanup(func(ctx context.Context) {
			_ = admin.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
		})
		Expect(admin.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "theirs", Namespace: name}})).To(Succeed())
		Expect(admin.Create(ctx, &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: clusterv1.ManagedClusterSpec{HubAcceptsClient: true}})).To(Succeed())
		deleteClusterAfter(name)
		expectCondition(ctx, name, clusterv1.ManagedClusterConditionHubAccepted, metav1.ConditionFalse, "ClusterNameNotAllowed")
		ns := &corev1.Namespace{}
		Expect(admin.Get(ctx, client.ObjectKey{Name: name}, ns)).To(Succeed())
		Expect(ns.Labels).NotTo(HaveKey(clusterv1.ClusterNameLabelKey))
		Expect(admin.Get(ctx, client.ObjectKey{Namespace: name, Name: "open-cluster-management:managedcluster:" + name + ":registration"}, &rbacv1.RoleBinding{})).
			To(Satisfy(apierrors.IsNotFound))
		Expect(asCluster(name).Get(ctx, client.ObjectKey{Namespace: name, Name: "theirs"}, &corev1.ConfigMap{})).To(MatchError(forbidden, "forbidden"))

		By("deleting the cluster: the namespace and what is in it stay")
		Expect(admin.Delete(ctx, getCluster(ctx, name))).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(admin.Get(ctx, client.ObjectKey{Name: name}, &clusterv1.ManagedCluster{}))
		}).WithContext(ctx).WithTimeout(timeout).Should(BeTrue())
		Expect(admin.Get(ctx, client.ObjectKey{Namespace: name, Name: "theirs"}, &corev1.ConfigMap{})).To(Succeed())
	})

	It("refuses the name of the role every cluster shares, and leaves that role alone when the cluster goes", func(ctx context.Context) {
		shared := &rbacv1.ClusterRole{}
		Expect(admin.Get(ctx, client.ObjectKey{Name: "open-cluster-management:managedcluster:registration"}, shared)).To(Succeed())
		Expect(admin.Create(ctx, &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "registration"},
			Spec: clusterv1.ManagedClusterSpec{HubAcceptsClient: true}})).To(Succeed())
		expectCondition(ctx, "registration", clusterv1.ManagedClusterConditionHubAccepted, metav1.ConditionFalse, "ClusterNameNotAllowed")
		Expect(admin.Delete(ctx, getCluster(ctx, "registration"))).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(admin.Get(ctx, client.ObjectKey{Name: "registration"}, &clusterv1.ManagedCluster{}))
		}).WithContext(ctx).WithTimeout(timeout).Should(BeTrue())
		after := &rbacv1.ClusterRole{}
		Expect(admin.Get(ctx, client.ObjectKey{Name: shared.Name}, after)).To(Succeed())
		Expect(after.Rules).To(Equal(shared.Rules))
	})
})

var _ = Describe("denying an accepted cluster", func() {
	It("revokes its permissions and sets HubAcceptedManagedCluster False", func(ctx context.Context) {
		name := newCluster(ctx, true)
		expectAccepted(ctx, name)
		agent := asCluster(name)
		expectAccess(ctx, agent, name)

		setAccepted(ctx, name, false)
		expectCondition(ctx, name, clusterv1.ManagedClusterConditionHubAccepted, metav1.ConditionFalse, "HubClusterAdminDenied")
		Eventually(func() error {
			return agent.Get(ctx, client.ObjectKey{Name: name}, &clusterv1.ManagedCluster{})
		}).WithContext(ctx).WithTimeout(timeout).Should(MatchError(forbidden, "forbidden"))
		Expect(agent.Get(ctx, client.ObjectKey{Namespace: name, Name: "managed-cluster-lease"}, &coordinationv1.Lease{})).To(MatchError(forbidden, "forbidden"))

		By("accepting it again restoring them")
		setAccepted(ctx, name, true)
		expectAccepted(ctx, name)
		expectAccess(ctx, agent, name)
	})
})

var _ = Describe("deleting a cluster", func() {
	It("removes its namespace with everything in it and its RBAC, behind the finalizer, and leaves other clusters alone", func(ctx context.Context) {
		doomed, other := newCluster(ctx, true), newCluster(ctx, true)
		expectAccepted(ctx, doomed)
		expectAccepted(ctx, other)
		Expect(admin.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "content", Namespace: doomed}})).To(Succeed())

		Expect(admin.Delete(ctx, getCluster(ctx, doomed))).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(admin.Get(ctx, client.ObjectKey{Name: doomed}, &clusterv1.ManagedCluster{}))
		}).WithContext(ctx).WithTimeout(2*timeout).Should(BeTrue(), "the ManagedCluster should go once its namespace is gone")
		Expect(apierrors.IsNotFound(admin.Get(ctx, client.ObjectKey{Name: doomed}, &corev1.Namespace{}))).To(BeTrue())
		role := "open-cluster-management:managedcluster:" + doomed
		Expect(apierrors.IsNotFound(admin.Get(ctx, client.ObjectKey{Name: role}, &rbacv1.ClusterRole{}))).To(BeTrue())
		Expect(apierrors.IsNotFound(admin.Get(ctx, client.ObjectKey{Name: role}, &rbacv1.ClusterRoleBinding{}))).To(BeTrue())

		By("leaving the other cluster as it was")
		expectAccepted(ctx, other)
		Expect(admin.Get(ctx, client.ObjectKey{Name: other}, &corev1.Namespace{})).To(Succeed())
		Expect(admin.Get(ctx, client.ObjectKey{Name: "open-cluster-management:managedcluster:" + other}, &rbacv1.ClusterRole{})).To(Succeed())
	})
})

// agentWork creates a ManifestWork in cluster's namespace with the
// finalizer its work agent puts on it.
func agentWork(ctx context.Context, cluster string) *workv1.ManifestWork {
	w := builder.Work(cluster, "app").Finalizer(workv1.ManifestWorkFinalizer).Manifests(workv1.Manifest{RawExtension: runtime.RawExtension{
		Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"app","namespace":"default"}}`),
	}}).Obj()
	Expect(admin.Create(ctx, w)).To(Succeed())
	return w
}

// expectGone waits until the cluster, its namespace and its RBAC are gone.
func expectGone(ctx context.Context, cluster string) {
	GinkgoHelper()
	role := "open-cluster-management:managedcluster:" + cluster
	for _, obj := range []client.Object{
		&clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: cluster}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: cluster}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: role}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role}},
	} {
		Eventually(func() bool {
			return apierrors.IsNotFound(admin.Get(ctx, client.ObjectKeyFromObject(obj), obj))
		}).WithContext(ctx).WithTimeout(2*timeout).Should(BeTrue(), "%T %s should be gone", obj, obj.GetName())
	}
}

var _ = Describe("deleting a cluster with works", func() {
	It("deletes the works first and keeps the cluster's RBAC until its agent has removed what they applied", func(ctx context.Context) {
		name := newCluster(ctx, true)
		expectAccepted(ctx, name)
		agent := asCluster(name)
		By("the agent heartbeating")
		Eventually(func(g Gomega) {
			mc := &clusterv1.ManagedCluster{}
			g.Expect(agent.Get(ctx, client.ObjectKey{Name: name}, mc)).To(Succeed())
			patch := client.MergeFrom(mc.DeepCopy())
			meta.SetStatusCondition(&mc.Status.Conditions, metav1.Condition{Type: clusterv1.ManagedClusterConditionAvailable, Status: metav1.ConditionTrue, Reason: "ManagedClusterAvailable"})
			g.Expect(agent.Status().Patch(ctx, mc, patch)).To(Succeed())
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		w := agentWork(ctx, name)

		Expect(admin.Delete(ctx, getCluster(ctx, name))).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(admin.Get(ctx, client.ObjectKeyFromObject(w), w)).To(Succeed())
			g.Expect(w.DeletionTimestamp).NotTo(BeNil(), "the hub should delete the cluster's works")
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		expectCondition(ctx, name, clusterv1.ManagedClusterConditionDeleting, metav1.ConditionFalse, clusterv1.ConditionDeletingReasonResourceRemaining)
		Expect(meta.FindStatusCondition(getCluster(ctx, name).Status.Conditions, clusterv1.ManagedClusterConditionDeleting).Message).
			To(ContainSubstring("app (" + workv1.ManifestWorkFinalizer + ")"))

		By("the agent, its RBAC still there, removing its finalizer once it has deleted what the work applied")
		Expect(agent.Get(ctx, client.ObjectKeyFromObject(w), w)).To(Succeed())
		Expect(w.Finalizers).To(ConsistOf(workv1.ManifestWorkFinalizer), "the hub should leave a heartbeating agent's finalizer alone")
		w.Finalizers = nil
		Expect(agent.Update(ctx, w)).To(Succeed())
		expectGone(ctx, name)
	})

	It("lets go of the works of an agent that no longer heartbeats, and finishes", func(ctx context.Context) {
		name := newCluster(ctx, true)
		expectAccepted(ctx, name)
		w := agentWork(ctx, name)

		Expect(admin.Delete(ctx, getCluster(ctx, name))).To(Succeed())
		expectGone(ctx, name)
		Expect(apierrors.IsNotFound(admin.Get(ctx, client.ObjectKeyFromObject(w), w))).To(BeTrue())
	})
})

var _ = Describe("deleting the namespace of a cluster that stays", func() {
	It("lets go of the works its agent can no longer finalize, and makes the namespace, RBAC and lease anew", func(ctx context.Context) {
		name := newCluster(ctx, true)
		expectAccepted(ctx, name)
		w := agentWork(ctx, name)
		old := &corev1.Namespace{}
		Expect(admin.Get(ctx, client.ObjectKey{Name: name}, old)).To(Succeed())

		Expect(admin.Delete(ctx, old)).To(Succeed())
		Eventually(func(g Gomega) {
			ns := &corev1.Namespace{}
			g.Expect(admin.Get(ctx, client.ObjectKey{Name: name}, ns)).To(Succeed())
			g.Expect(ns.UID).NotTo(Equal(old.UID), "the namespace should be gone, and made anew")
			g.Expect(ns.Labels).To(HaveKeyWithValue(clusterv1.ClusterNameLabelKey, name))
		}).WithContext(ctx).WithTimeout(2 * timeout).Should(Succeed())
		Expect(apierrors.IsNotFound(admin.Get(ctx, client.ObjectKeyFromObject(w), w))).To(BeTrue(), "the work went with its namespace")
		Eventually(func(g Gomega) {
			role := "open-cluster-management:managedcluster:" + name
			g.Expect(admin.Get(ctx, client.ObjectKey{Namespace: name, Name: role + ":registration"}, &rbacv1.RoleBinding{})).To(Succeed())
			g.Expect(admin.Get(ctx, client.ObjectKey{Namespace: name, Name: "managed-cluster-lease"}, &coordinationv1.Lease{})).To(Succeed())
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		expectAccepted(ctx, name)
	})
})
