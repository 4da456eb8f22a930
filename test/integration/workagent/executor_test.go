package workagent_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var _ = Describe("Executor", func() {
	It("applies what the executor may apply and refuses, saying why, what it may not", func(ctx context.Context) {
		allowed, denied, w := createNamespace(ctx), createNamespace(ctx), name("work")
		By("letting service account deployer manage ConfigMaps in one namespace only")
		Expect(managed.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: allowed, Name: "deployer"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"*"}}}})).To(Succeed())
		Expect(managed.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: allowed, Name: "deployer"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "deployer"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: allowed, Name: "deployer"}}})).To(Succeed())

		createWork(ctx, w, workv1.ManifestWorkSpec{Executor: &workv1.ManifestWorkExecutor{Subject: workv1.ManifestWorkExecutorSubject{
			Type: workv1.ExecutorSubjectTypeServiceAccount, ServiceAccount: &workv1.ManifestWorkSubjectServiceAccount{Namespace: allowed, Name: "deployer"},
		}}}, configMap(allowed, "cm", nil), configMap(denied, "cm", nil))
		Eventually(func(g Gomega) {
			g.Expect(manifestCondition(ctx, w, 0, workv1.ManifestApplied)).To(HaveField("Status", metav1.ConditionTrue))
			c := manifestCondition(ctx, w, 1, workv1.ManifestApplied)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(c.Message).To(ContainSubstring("executor system:serviceaccount:" + allowed + ":deployer may not"))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		_, err := getConfigMap(ctx, allowed, "cm")
		Expect(err).NotTo(HaveOccurred())
		_, err = getConfigMap(ctx, denied, "cm")
		Expect(err).To(MatchError(ContainSubstring("not found")))
	})

	It("writes as the executor: a RoleBinding granting more than it holds is refused, and applied once the work has no executor", func(ctx context.Context) {
		ns, w, reader := createNamespace(ctx), name("work"), name("secret-reader")
		By("letting service account binder manage RoleBindings in the namespace, without holding the ClusterRole to bind")
		Expect(managed.Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: reader},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}}}})).To(Succeed())
		DeferCleanup(func(ctx context.Context) {
			Expect(managed.Delete(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: reader}})).To(Succeed())
		})
		grant(ctx, ns, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: "binder"},
			rbacv1.PolicyRule{APIGroups: []string{rbacv1.GroupName}, Resources: []string{"rolebindings"}, Verbs: []string{"*"}})
		binding := obj{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": obj{"namespace": ns, "name": "readers"},
			"roleRef":  obj{"apiGroup": rbacv1.GroupName, "kind": "ClusterRole", "name": reader},
			"subjects": []any{obj{"kind": "ServiceAccount", "namespace": ns, "name": "reader"}}}

		createWork(ctx, w, workv1.ManifestWorkSpec{Executor: executor(ns, "binder")}, binding)
		Eventually(func(g Gomega) {
			c := manifestCondition(ctx, w, 0, workv1.ManifestApplied)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(c.Message).To(And(ContainSubstring("executor system:serviceaccount:"+ns+":binder may not apply"),
				ContainSubstring("attempting to grant RBAC permissions not currently held")))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		Expect(managed.Get(ctx, client.ObjectKey{Namespace: ns, Name: "readers"}, &rbacv1.RoleBinding{})).To(MatchError(ContainSubstring("not found")))

		By("taking the executor out of the work: the agent applies it as itself")
		Eventually(func() error {
			mw := work(ctx, w)
			mw.Spec.Executor = nil
			return hub.Update(ctx, mw)
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(manifestCondition(ctx, w, 0, workv1.ManifestApplied)).To(HaveField("Status", metav1.ConditionTrue))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		Expect(managed.Get(ctx, client.ObjectKey{Namespace: ns, Name: "readers"}, &rbacv1.RoleBinding{})).To(Succeed())
	})

	It("writes as the executor with its service account's groups", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		By("granting ConfigMaps to the namespace's service accounts as a group, not to the executor by name")
		grant(ctx, ns, rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "system:serviceaccounts:" + ns},
			rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"*"}})
		createWork(ctx, w, workv1.ManifestWorkSpec{Executor: executor(ns, "deployer")}, configMap(ns, "cm", nil))
		expectWorkCondition(ctx, w, workv1.WorkApplied, metav1.ConditionTrue)
		_, err := getConfigMap(ctx, ns, "cm")
		Expect(err).NotTo(HaveOccurred())
	})

	It("keeps, when the work is deleted, what its executor may not delete", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		grant(ctx, ns, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: "deployer"},
			rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch"}})
		By("applying with deleteOption Orphan, which needs no delete")
		createWork(ctx, w, workv1.ManifestWorkSpec{Executor: executor(ns, "deployer"),
			DeleteOption: &workv1.DeleteOption{PropagationPolicy: workv1.DeletePropagationPolicyTypeOrphan}}, configMap(ns, "cm", nil))
		expectWorkCondition(ctx, w, workv1.WorkApplied, metav1.ConditionTrue)

		By("switching the work to Foreground, then deleting it")
		Eventually(func() error {
			mw := work(ctx, w)
			mw.Spec.DeleteOption = &workv1.DeleteOption{PropagationPolicy: workv1.DeletePropagationPolicyTypeForeground}
			return hub.Update(ctx, mw)
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		deleteWork(ctx, w)
		cm, err := getConfigMap(ctx, ns, "cm")
		Expect(err).NotTo(HaveOccurred())
		Expect(cm.OwnerReferences).To(BeEmpty())
	})
})

// executor is a work executor: service account ns/name.
func executor(ns, name string) *workv1.ManifestWorkExecutor {
	return &workv1.ManifestWorkExecutor{Subject: workv1.ManifestWorkExecutorSubject{
		Type: workv1.ExecutorSubjectTypeServiceAccount, ServiceAccount: &workv1.ManifestWorkSubjectServiceAccount{Namespace: ns, Name: name},
	}}
}

// grant gives subject rule in namespace ns of the managed cluster.
func grant(ctx context.Context, ns string, subject rbacv1.Subject, rule rbacv1.PolicyRule) {
	GinkgoHelper()
	role := name("role")
	Expect(managed.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: role}, Rules: []rbacv1.PolicyRule{rule}})).To(Succeed())
	Expect(managed.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: role},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role},
		Subjects: []rbacv1.Subject{subject}})).To(Succeed())
}
