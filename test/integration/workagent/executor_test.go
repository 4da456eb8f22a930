package workagent_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"
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
})
