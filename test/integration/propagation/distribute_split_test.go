package propagation_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/distribute"
	"github.com/corral-dev/corral/propagation/hub/revision"
)

var _ = Describe("distribute, revisions over one work", Ordered, func() {
	BeforeAll(func() { startDistributor(distribute.Options{}) })

	It("delivers a revision over PartBudget as several works per cluster; an object over MaxWorkBytes changes nothing", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		c1, c2 := clusterNamespace(ctx), clusterNamespace(ctx)
		decide(ctx, ns, "both", c1, c2)
		// Three objects of 45% of a part each: two fit a part, the third
		// takes a second.
		size := revision.PartBudget * 45 / 100
		createRevisionOf(ctx, ns, "big", 1, bigConfigMap(ns, "a", size), bigConfigMap(ns, "b", size), bigConfigMap(ns, "c", size))
		Expect(c.Create(ctx, propagationOf(ns, "big", "both", clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All}))).To(Succeed())

		By("two works on each cluster, both of revision 1, the objects in order")
		part0, part1 := distribute.WorkName(ns, "big", 0), distribute.WorkName(ns, "big", 1)
		Eventually(partsOf).WithContext(ctx).WithArguments(ns, "big").WithTimeout(deliverTimeout).WithPolling(poll).
			Should(Equal(map[string]string{c1 + "/" + part0: "1", c1 + "/" + part1: "1", c2 + "/" + part0: "1", c2 + "/" + part1: "1"}))
		versions := map[string]string{}
		for _, cluster := range []string{c1, c2} {
			var names []string
			for _, part := range []string{part0, part1} {
				w := &workv1.ManifestWork{}
				Expect(c.Get(ctx, client.ObjectKey{Namespace: cluster, Name: part}, w)).To(Succeed())
				bytes := 0
				for _, m := range w.Spec.Workload.Manifests {
					bytes += len(m.Raw)
					obj := &metav1.PartialObjectMetadata{}
					Expect(json.Unmarshal(m.Raw, obj)).To(Succeed())
					names = append(names, obj.Name)
				}
				Expect(bytes).To(BeNumerically("<=", revision.PartBudget), "work %s/%s", cluster, part)
				versions[cluster+"/"+part] = w.ResourceVersion
			}
			Expect(names).To(Equal([]string{"a", "b", "c"}), "objects on %s", cluster)
		}

		By("revision 2 holding an object over MaxWorkBytes: a condition, and no work changes")
		createRevisionOf(ctx, ns, "big", 2, bigConfigMap(ns, "huge", revision.MaxWorkBytes+1024))
		Eventually(func(g Gomega) {
			got := &v1alpha1.Propagation{}
			g.Expect(c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "big"}, got)).To(Succeed())
			scheduled := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionScheduled)
			g.Expect(scheduled).NotTo(BeNil())
			g.Expect(scheduled.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(scheduled.Reason).To(Equal(v1alpha1.ReasonTooLarge))
			g.Expect(scheduled.Message).To(ContainSubstring("revision 2"))
		}).WithTimeout(deliverTimeout).WithPolling(poll).Should(Succeed())
		Consistently(func(g Gomega) {
			list := &workv1.ManifestWorkList{}
			g.Expect(c.List(ctx, list, client.MatchingLabels{v1alpha1.LabelPropagation: "big", v1alpha1.LabelPropagationNamespace: ns})).To(Succeed())
			now := map[string]string{}
			for _, w := range list.Items {
				now[w.Namespace+"/"+w.Name] = w.ResourceVersion
			}
			g.Expect(now).To(Equal(versions))
		}).WithTimeout(consistently).WithPolling(poll).Should(Succeed())
	})
})

// bigConfigMap is a ConfigMap ns/name whose data weighs about size bytes.
func bigConfigMap(ns, name string, size int) string {
	return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `","namespace":"` + ns + `"},"data":{"blob":"` +
		strings.Repeat("x", size) + `"}}`
}

// createRevisionOf creates revision n of ns/name holding objs, as the
// selector controller would.
func createRevisionOf(ctx context.Context, ns, name string, n int64, objs ...string) {
	GinkgoHelper()
	rev := &v1alpha1.PropagationRevision{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-" + strconv.FormatInt(n, 10),
			Labels: map[string]string{v1alpha1.LabelPropagation: name, v1alpha1.LabelRevision: strconv.FormatInt(n, 10)}},
		Spec: revisionSpec(n),
	}
	rev.Spec.Objects = nil
	for _, o := range objs {
		rev.Spec.Objects = append(rev.Spec.Objects, manifest(o))
	}
	Expect(c.Create(ctx, rev)).To(Succeed())
}

// partsOf is the revision label of each work of ns/name, by
// <cluster>/<work>.
func partsOf(ctx context.Context, ns, name string) map[string]string {
	GinkgoHelper()
	list := &workv1.ManifestWorkList{}
	Expect(c.List(ctx, list, client.MatchingLabels{v1alpha1.LabelPropagation: name, v1alpha1.LabelPropagationNamespace: ns})).To(Succeed())
	out := map[string]string{}
	for _, w := range list.Items {
		out[w.Namespace+"/"+w.Name] = w.Labels[v1alpha1.LabelRevision]
	}
	return out
}
