package workhub_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// holdFinalizer keeps a deleted work, as an agent's finalizer would, so
// that the spec sees when it was deleted.
const holdFinalizer = "test.corral.dev/hold"

// jobSpec is a work of one ConfigMap with a Complete condition rule and,
// when ttl is not nil, ttlSecondsAfterFinished.
func jobSpec(name string, ttl *int64) workv1.ManifestWorkSpec {
	spec := workv1.ManifestWorkSpec{
		Workload: workv1.ManifestsTemplate{Manifests: []workv1.Manifest{configMap(name, map[string]string{"done": "yes"})}},
		ManifestConfigs: []workv1.ManifestConfigOption{{
			ResourceIdentifier: workv1.ResourceIdentifier{Resource: "configmaps", Namespace: "default", Name: name},
			ConditionRules: []workv1.ConditionRule{{Condition: workv1.ManifestComplete, Type: workv1.CelConditionExpressionsType,
				CelExpressions: []string{`object.data.done == "yes"`}}},
		}},
	}
	if ttl != nil {
		spec.DeleteOption = &workv1.DeleteOption{PropagationPolicy: workv1.DeletePropagationPolicyTypeForeground, TTLSecondsAfterFinished: ttl}
	}
	return spec
}

// reportComplete writes the work's Complete condition as a work agent
// would, completed at at, and returns the work's UID.
func reportComplete(ctx context.Context, cluster, name string, at time.Time) types.UID {
	GinkgoHelper()
	w := &workv1.ManifestWork{}
	Eventually(func(g Gomega) {
		g.Expect(admin.Get(ctx, client.ObjectKey{Namespace: cluster, Name: name}, w)).To(Succeed())
		meta.SetStatusCondition(&w.Status.Conditions, metav1.Condition{Type: workv1.WorkComplete, Status: metav1.ConditionTrue,
			Reason: workv1.WorkManifestsComplete, ObservedGeneration: w.Generation, LastTransitionTime: metav1.NewTime(at)})
		g.Expect(admin.Status().Update(ctx, w)).To(Succeed())
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	return w.UID
}

var _ = Describe("Completed ManifestWorks", func() {
	It("are deleted ttlSecondsAfterFinished after they completed; one without a TTL, or a ManifestWorkReplicaSet's, is kept", func(ctx context.Context) {
		cls := clusters(ctx, 1)
		for _, w := range []struct {
			name string
			ttl  *int64
		}{{"with-ttl", ptr.To[int64](2)}, {"without-ttl", nil}} {
			Expect(admin.Create(ctx, &workv1.ManifestWork{
				ObjectMeta: metav1.ObjectMeta{Namespace: cls[0], Name: w.name, Finalizers: []string{holdFinalizer}},
				Spec:       jobSpec(w.name, w.ttl),
			})).To(Succeed())
		}
		By("a ManifestWorkReplicaSet whose template has a TTL of 0")
		ns := newNamespace(ctx, "ttl")
		createPlacement(ctx, ns, "place")
		decide(ctx, ns, "place", 0, "", cls[0])
		set := &workv1alpha1.ManifestWorkReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "job"},
			Spec: workv1alpha1.ManifestWorkReplicaSetSpec{ManifestWorkTemplate: jobSpec("job", ptr.To[int64](0)),
				PlacementRefs: []workv1alpha1.LocalPlacementReference{{Name: "place"}}}}
		Expect(admin.Create(ctx, set)).To(Succeed())
		expectWorksOn(ctx, set, cls[0])

		// Whole seconds: the API stores condition and deletion times so.
		completed := time.Now().Truncate(time.Second)
		uids := map[string]types.UID{}
		for _, name := range []string{"with-ttl", "without-ttl", "job"} {
			uids[name] = reportComplete(ctx, cls[0], name, completed)
		}

		By("the work with a TTL is deleted, not before the TTL has passed")
		Eventually(func(g Gomega) {
			w := &workv1.ManifestWork{}
			g.Expect(admin.Get(ctx, client.ObjectKey{Namespace: cls[0], Name: "with-ttl"}, w)).To(Succeed())
			g.Expect(w.DeletionTimestamp).NotTo(BeNil())
			g.Expect(w.DeletionTimestamp.Time).To(BeTemporally(">=", completed.Add(2*time.Second)))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		release(ctx, cls[0], "with-ttl")

		By("the work without a TTL and the set's work stay (the set would make a deleted one anew)")
		Consistently(func(g Gomega) {
			for _, name := range []string{"without-ttl", "job"} {
				w := &workv1.ManifestWork{}
				g.Expect(admin.Get(ctx, client.ObjectKey{Namespace: cls[0], Name: name}, w)).To(Succeed())
				g.Expect(w.DeletionTimestamp).To(BeNil(), name)
				g.Expect(w.UID).To(Equal(uids[name]), name)
			}
		}).WithContext(ctx).WithTimeout(3 * time.Second).Should(Succeed())
		release(ctx, cls[0], "without-ttl")
	})
})

// release takes holdFinalizer off the work.
func release(ctx context.Context, cluster, name string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		w := &workv1.ManifestWork{}
		g.Expect(admin.Get(ctx, client.ObjectKey{Namespace: cluster, Name: name}, w)).To(Succeed())
		controllerutil.RemoveFinalizer(w, holdFinalizer)
		g.Expect(admin.Update(ctx, w)).To(Succeed())
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}
