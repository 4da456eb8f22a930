package workagent_test

import (
	"context"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/work/agent/status"
)

func deployment(ns, name string) obj {
	labels := obj{"app": name}
	return obj{
		"apiVersion": "apps/v1", "kind": "Deployment", "metadata": obj{"namespace": ns, "name": name},
		"spec": obj{
			"replicas": int64(2), "selector": obj{"matchLabels": labels},
			"template": obj{"metadata": obj{"labels": labels}, "spec": obj{"containers": []any{obj{"name": "c", "image": "busybox"}}}},
		},
	}
}

// feedback is the manifest's feedback values by name.
func feedback(ctx context.Context, w string, ordinal int) map[string]workv1.FieldValue {
	out := map[string]workv1.FieldValue{}
	for _, m := range work(ctx, w).Status.ResourceStatus.Manifests {
		if int(m.ResourceMeta.Ordinal) == ordinal {
			for _, v := range m.StatusFeedbacks.Values {
				out[v.Name] = v.Value
			}
		}
	}
	return out
}

var _ = Describe("Status feedback", func() {
	It("reports a Deployment's WellKnownStatus as it changes", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		createWork(ctx, w, workv1.ManifestWorkSpec{ManifestConfigs: []workv1.ManifestConfigOption{{
			ResourceIdentifier: workv1.ResourceIdentifier{Group: "apps", Resource: "deployments", Namespace: ns, Name: "app"},
			FeedbackRules:      []workv1.FeedbackRule{{Type: workv1.WellKnownStatusType}},
		}}}, deployment(ns, "app"))
		expectWorkCondition(ctx, w, workv1.WorkApplied, metav1.ConditionTrue)

		By("the managed cluster's controllers reporting two ready replicas")
		d := &appsv1.Deployment{}
		Expect(managed.Get(ctx, client.ObjectKey{Namespace: ns, Name: "app"}, d)).To(Succeed())
		d.Status = appsv1.DeploymentStatus{Replicas: 2, ReadyReplicas: 2, AvailableReplicas: 2}
		Expect(managed.Status().Update(ctx, d)).To(Succeed())
		Eventually(func(g Gomega) {
			fb := feedback(ctx, w, 0)
			g.Expect(fb).To(HaveKeyWithValue("ReadyReplicas", HaveField("Integer", HaveValue(BeEquivalentTo(2)))))
			g.Expect(fb).To(HaveKeyWithValue("Replicas", HaveField("Integer", HaveValue(BeEquivalentTo(2)))))
			g.Expect(manifestCondition(ctx, w, 0, status.ConditionStatusFeedbackSynced)).To(HaveField("Status", metav1.ConditionTrue))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	})

	It("reports JSONPaths, a structured value as raw JSON, and says when a value is over the cap", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		createWork(ctx, w, workv1.ManifestWorkSpec{ManifestConfigs: []workv1.ManifestConfigOption{{
			ResourceIdentifier: workv1.ResourceIdentifier{Resource: "configmaps", Namespace: ns, Name: "cm"},
			FeedbackRules: []workv1.FeedbackRule{{Type: workv1.JSONPathsType, JsonPaths: []workv1.JsonPath{
				{Name: "small", Path: ".data.small"},
				{Name: "labels", Path: ".metadata.labels"},
				{Name: "big", Path: ".metadata.annotations"},
			}}},
		}}}, obj{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": obj{"namespace": ns, "name": "cm", "labels": obj{"l": "v"},
				"annotations": obj{"big": strings.Repeat("x", status.MaxRawSize)}},
			"data": obj{"small": "s"}})
		Eventually(func(g Gomega) {
			fb := feedback(ctx, w, 0)
			g.Expect(fb).To(HaveKeyWithValue("small", HaveField("String", HaveValue(Equal("s")))))
			g.Expect(fb).To(HaveKeyWithValue("labels", HaveField("JsonRaw", HaveValue(MatchJSON(`{"l":"v"}`)))))
			g.Expect(fb).NotTo(HaveKey("big"))
			c := manifestCondition(ctx, w, 0, status.ConditionStatusFeedbackSynced)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(c.Message).To(ContainSubstring("-byte cap"))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		expectWorkCondition(ctx, w, workv1.WorkAvailable, metav1.ConditionTrue)
	})
})
