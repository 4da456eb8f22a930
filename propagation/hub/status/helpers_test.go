package status

import (
	"strconv"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/corral-dev/corral/internal/testing/builder"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/aggregate"
	"github.com/corral-dev/corral/propagation/hub/revisionindex"
	"github.com/corral-dev/corral/propagation/hub/workindex"
)

func fakeClient(t *testing.T, objs ...client.Object) client.Client {
	t.Helper()
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).
		WithIndex(&workv1.ManifestWork{}, workindex.Field, workindex.KeyOf).
		WithIndex(&v1alpha1.PropagationRevision{}, revisionindex.Field, revisionindex.KeyOf).
		WithIndex(&v1alpha1.ClusterPropagationRevision{}, revisionindex.Field, revisionindex.KeyOf).
		WithStatusSubresource(&v1alpha1.Propagation{}, &appsv1.Deployment{}).Build()
}

func manifest(j string) workv1.Manifest {
	return workv1.Manifest{RawExtension: runtime.RawExtension{Raw: []byte(j)}}
}

var (
	webManifest = manifest(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop"},"spec":{"replicas":4}}`)
	cmManifest  = manifest(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web","namespace":"shop"}}`)
	webID       = workv1.ResourceIdentifier{Group: "apps", Resource: "deployments", Namespace: "shop", Name: "web"}
	webTarget   = target{gvk: appsv1.SchemeGroupVersion.WithKind("Deployment"), id: webID}
)

// prop is the Propagation shop/web delivering revision delivered to
// clusters.
func prop(delivered int64, clusters ...string) *v1alpha1.Propagation {
	p := &v1alpha1.Propagation{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}
	p.Status.DeliveredRevision = delivered
	for _, c := range clusters {
		p.Status.Clusters = append(p.Status.Clusters, v1alpha1.ClusterStatus{Cluster: c, Revision: delivered})
	}
	return p
}

// scopeOf is the scope of p.
func scopeOf(p *v1alpha1.Propagation) *scope {
	return &scope{obj: p, policy: &p.Spec.PropagationPolicy, status: &p.Status}
}

// rev is revision n of shop/web holding objects.
func rev(n int64, objects ...workv1.Manifest) *v1alpha1.PropagationRevision {
	return &v1alpha1.PropagationRevision{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-" + strconv.FormatInt(n, 10),
			Labels: map[string]string{v1alpha1.LabelPropagation: "web", v1alpha1.LabelRevision: strconv.FormatInt(n, 10)}},
		Spec: v1alpha1.RevisionSpec{Revision: n, Hash: "sha256:x", Objects: objects},
	}
}

// fed is a Deployment member's feedback: generation and observed
// generation, and every counter at n.
func fed(gen, observed, n int64) workv1.StatusFeedbackResult {
	v := func(name string, x int64) workv1.FeedbackValue {
		return workv1.FeedbackValue{Name: name, Value: workv1.FieldValue{Type: workv1.Integer, Integer: ptr.To(x)}}
	}
	fb := workv1.StatusFeedbackResult{Values: []workv1.FeedbackValue{
		v(aggregate.FeedbackGeneration, gen), v(aggregate.FeedbackObservedGeneration, observed)}}
	for _, c := range []string{"replicas", "readyReplicas", "updatedReplicas", "availableReplicas"} {
		fb.Values = append(fb.Values, v(c, n))
	}
	return fb
}

// fedRev is fed with the object's revision label fed back too.
func fedRev(rev string, gen, observed, n int64) workv1.StatusFeedbackResult {
	fb := fed(gen, observed, n)
	fb.Values = append(fb.Values, workv1.FeedbackValue{Name: aggregate.FeedbackRevision, Value: workv1.FieldValue{Type: workv1.String, String: ptr.To(rev)}})
	return fb
}

// work is shop/web's part 0 on cluster, of revision n at generation 1,
// applied at generation applied (0: no Applied condition), reporting fb
// for the Deployment web.
func work(cluster string, n, applied int64, fb workv1.StatusFeedbackResult) *workv1.ManifestWork {
	b := builder.Work(cluster, "prop.shop.web-0").Generation(1).
		Label(v1alpha1.LabelPropagation, "web").Label(v1alpha1.LabelPropagationNamespace, "shop").
		Label(v1alpha1.LabelRevision, strconv.FormatInt(n, 10)).Manifests(webManifest).
		ManifestStatus(workv1.ManifestCondition{
			ResourceMeta:    workv1.ManifestResourceMeta{Group: "apps", Version: "v1", Kind: "Deployment", Resource: "deployments", Namespace: "shop", Name: "web"},
			StatusFeedbacks: fb,
		})
	if applied > 0 {
		b = b.Condition(metav1.Condition{Type: workv1.WorkApplied, Status: metav1.ConditionTrue, Reason: "Test", ObservedGeneration: applied})
	}
	return b.Obj()
}
