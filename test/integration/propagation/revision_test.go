package propagation_test

import (
	"context"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// manifest is an OCM work Manifest of the JSON object j.
func manifest(j string) workv1.Manifest {
	return workv1.Manifest{RawExtension: runtime.RawExtension{Raw: []byte(j)}}
}

const configMap = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web","namespace":"shop"},"data":{"color":"blue"}}`

// revisionSpec is a valid spec of revision n holding the ConfigMap.
func revisionSpec(n int64) v1alpha1.RevisionSpec {
	return v1alpha1.RevisionSpec{
		Revision: n,
		Hash:     "sha256:" + strings.Repeat("ab", 32),
		Objects:  []workv1.Manifest{manifest(configMap)},
	}
}

// revisionEdits are the edits of a revision's spec that must be refused,
// each of one field; the ConfigMap's data is a field the schema does not
// know (the objects preserve unknown fields), which the CEL rule sees too.
var revisionEdits = map[string]func(*v1alpha1.RevisionSpec){
	"an object's data": func(s *v1alpha1.RevisionSpec) {
		s.Objects = []workv1.Manifest{manifest(strings.Replace(configMap, "blue", "green", 1))}
	},
	"an object added": func(s *v1alpha1.RevisionSpec) {
		s.Objects = append(s.Objects, manifest(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop"}}`))
	},
	"the hash":     func(s *v1alpha1.RevisionSpec) { s.Hash = "sha256:" + strings.Repeat("cd", 32) },
	"the revision": func(s *v1alpha1.RevisionSpec) { s.Revision = 2 },
}

var _ = Describe("revisions", func() {
	It("refuses every edit of a PropagationRevision's spec, and takes its labels'", func(ctx context.Context) {
		rev := &v1alpha1.PropagationRevision{
			ObjectMeta: metav1.ObjectMeta{Namespace: freshNamespace(ctx), Name: "web-1"},
			Spec:       revisionSpec(1),
		}
		Expect(c.Create(ctx, rev)).To(Succeed())
		for what, edit := range revisionEdits {
			By("editing " + what)
			edited := rev.DeepCopy()
			edit(&edited.Spec)
			err := c.Update(ctx, edited)
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "editing %s: want Invalid, got %v", what, err)
			Expect(err).To(MatchError(ContainSubstring("a revision's spec is immutable")))
		}
		By("labelling it")
		rev.Labels = map[string]string{v1alpha1.LabelPropagation: "web", v1alpha1.LabelRevision: "1"}
		Expect(c.Update(ctx, rev)).To(Succeed())
	})

	It("refuses every edit of a ClusterPropagationRevision's spec", func(ctx context.Context) {
		rev := &v1alpha1.ClusterPropagationRevision{
			ObjectMeta: metav1.ObjectMeta{Name: testenv.UniqueName("shop")},
			Spec:       revisionSpec(1),
		}
		Expect(c.Create(ctx, rev)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(c.Delete(ctx, rev)).To(Succeed()) })
		for what, edit := range revisionEdits {
			By("editing " + what)
			edited := rev.DeepCopy()
			edit(&edited.Spec)
			err := c.Update(ctx, edited)
			Expect(err).To(MatchError(ContainSubstring("a revision's spec is immutable")), "editing %s", what)
		}
	})

	It("keeps an object's fields the schema does not know", func(ctx context.Context) {
		rev := &v1alpha1.PropagationRevision{
			ObjectMeta: metav1.ObjectMeta{Namespace: freshNamespace(ctx), Name: "web-1"},
			Spec:       revisionSpec(1),
		}
		Expect(c.Create(ctx, rev)).To(Succeed())
		got := &v1alpha1.PropagationRevision{}
		Expect(c.Get(ctx, client.ObjectKeyFromObject(rev), got)).To(Succeed())
		Expect(got.Spec.Objects).To(HaveLen(1))
		Expect(string(got.Spec.Objects[0].Raw)).To(ContainSubstring(`"color":"blue"`))
	})

	DescribeTable("a revision the CRD refuses",
		func(ctx context.Context, edit func(*v1alpha1.RevisionSpec), says string) {
			rev := &v1alpha1.PropagationRevision{
				ObjectMeta: metav1.ObjectMeta{Namespace: freshNamespace(ctx), Name: "web-1"},
				Spec:       revisionSpec(1),
			}
			edit(&rev.Spec)
			err := c.Create(ctx, rev)
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want Invalid, got %v", err)
			Expect(err).To(MatchError(ContainSubstring(says)))
		},
		Entry("revision 0", func(s *v1alpha1.RevisionSpec) { s.Revision = 0 }, "spec.revision: Invalid value: 0"),
		Entry("a hash of another form", func(s *v1alpha1.RevisionSpec) { s.Hash = "md5:abc" }, "spec.hash: Invalid value"),
		Entry("an object without kind", func(s *v1alpha1.RevisionSpec) {
			s.Objects = []workv1.Manifest{manifest(`{"apiVersion":"v1","metadata":{"name":"web"}}`)}
		}, "spec.objects[0].kind: Required value"),
		Entry("an object without apiVersion", func(s *v1alpha1.RevisionSpec) {
			s.Objects = []workv1.Manifest{manifest(`{"kind":"ConfigMap","metadata":{"name":"web"}}`)}
		}, "spec.objects[0].apiVersion: Required value"),
	)
})
