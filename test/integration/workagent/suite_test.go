// Package workagent_test runs the work agent (agent.Run, the seam the work
// addon calls) against two real API servers: a hub holding ManifestWorks
// in the cluster namespace and the managed cluster they are applied to.
package workagent_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/rest"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/deploy/charts/corral-hub/crds"
	"github.com/corral-dev/corral/dev/localcluster"
	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/work/agent"
)

func TestWorkAgent(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "work agent")
}

const (
	timeout     = 60 * time.Second
	clusterName = "cluster1"
	// evictionGrace is short so that the eviction spec sees it end.
	evictionGrace = 3 * time.Second
)

var (
	hubCluster, managedCluster *localcluster.Cluster
	hub, managed               client.Client
	// hubRequests and managedRequests count the suite's agent's requests
	// to either cluster.
	hubRequests, managedRequests = &requestCounter{}, &requestCounter{}
)

// requestCounter counts the requests made through the configs it wraps,
// by method and path.
type requestCounter struct {
	mu sync.Mutex
	n  map[string]int
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// wrap is cfg with its requests counted.
func (c *requestCounter) wrap(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			c.mu.Lock()
			if c.n == nil {
				c.n = map[string]int{}
			}
			c.n[req.Method+" "+req.URL.Path]++
			c.mu.Unlock()
			return rt.RoundTrip(req)
		})
	})
	return cfg
}

// count is how many requests with method to path were made.
func (c *requestCounter) count(method, path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[method+" "+path]
}

var _ = BeforeSuite(func(ctx context.Context) {
	ctrl.SetLogger(GinkgoLogr)
	// The hub, and a separate API server an agent runs for.
	var err error
	hubCluster, managedCluster = testenv.HubAndManaged(ctx)

	Expect(crds.Install(ctx, managedCluster.Config)).To(Succeed())
	scheme, err := agent.Scheme()
	Expect(err).NotTo(HaveOccurred())
	hub, err = client.New(hubCluster.Config, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	managed, err = client.New(managedCluster.Config, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	Expect(hub.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: clusterName}})).To(Succeed())

	stop := testenv.Go(context.Background(), func(ctx context.Context) error {
		return agent.Run(ctx, agent.Options{
			ClusterName: clusterName, Hub: hubRequests.wrap(hubCluster.Config), Managed: managedRequests.wrap(managedCluster.Config),
			EvictionGracePeriod: evictionGrace, RawFeedbackJSON: true,
		})
	})
	DeferCleanup(func() { Expect(stop(timeout)).To(Succeed()) })
}, NodeTimeout(localcluster.DefaultStartTimeout+60e9))

// name is a fresh name for a spec's objects.
func name(prefix string) string { return prefix + "-" + rand.String(6) }

// obj is a manifest.
type obj map[string]any

func configMap(ns, name string, data map[string]any) obj {
	return obj{"apiVersion": "v1", "kind": "ConfigMap", "metadata": obj{"namespace": ns, "name": name}, "data": data}
}

func namespace(name string) obj {
	return obj{"apiVersion": "v1", "kind": "Namespace", "metadata": obj{"name": name}}
}

func manifests(objs ...obj) []workv1.Manifest {
	var out []workv1.Manifest
	for _, o := range objs {
		raw, err := json.Marshal(o)
		Expect(err).NotTo(HaveOccurred())
		out = append(out, workv1.Manifest{RawExtension: runtime.RawExtension{Raw: raw}})
	}
	return out
}

// createWork creates a ManifestWork in the cluster namespace.
func createWork(ctx context.Context, name string, spec workv1.ManifestWorkSpec, objs ...obj) *workv1.ManifestWork {
	GinkgoHelper()
	spec.Workload.Manifests = manifests(objs...)
	w := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: clusterName, Name: name}, Spec: spec}
	Expect(hub.Create(ctx, w)).To(Succeed())
	return w
}

// work reads a ManifestWork back.
func work(ctx context.Context, name string) *workv1.ManifestWork {
	GinkgoHelper()
	w := &workv1.ManifestWork{}
	Expect(hub.Get(ctx, client.ObjectKey{Namespace: clusterName, Name: name}, w)).To(Succeed())
	return w
}

// setManifests replaces a ManifestWork's manifests on the hub, trying
// again when the agent wrote the work in between, and returns it as
// updated.
func setManifests(ctx context.Context, name string, objs ...obj) *workv1.ManifestWork {
	GinkgoHelper()
	w := &workv1.ManifestWork{}
	Eventually(func() error {
		if err := hub.Get(ctx, client.ObjectKey{Namespace: clusterName, Name: name}, w); err != nil {
			return err
		}
		w.Spec.Workload.Manifests = manifests(objs...)
		return hub.Update(ctx, w)
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	return w
}

// expectWorkCondition waits for the work's condition to have status.
func expectWorkCondition(ctx context.Context, name, condition string, status metav1.ConditionStatus) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		w := &workv1.ManifestWork{}
		g.Expect(hub.Get(ctx, client.ObjectKey{Namespace: clusterName, Name: name}, w)).To(Succeed())
		c := meta.FindStatusCondition(w.Status.Conditions, condition)
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.Status).To(Equal(status), c.Message)
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}

// manifestCondition is a manifest's condition in the work's status.
func manifestCondition(ctx context.Context, name string, ordinal int, condition string) *metav1.Condition {
	w := &workv1.ManifestWork{}
	if err := hub.Get(ctx, client.ObjectKey{Namespace: clusterName, Name: name}, w); err != nil {
		return nil
	}
	for _, m := range w.Status.ResourceStatus.Manifests {
		if int(m.ResourceMeta.Ordinal) == ordinal {
			return meta.FindStatusCondition(m.Conditions, condition)
		}
	}
	return nil
}

// getConfigMap reads a ConfigMap on the managed cluster.
func getConfigMap(ctx context.Context, ns, name string) (*corev1.ConfigMap, error) {
	cm := &corev1.ConfigMap{}
	return cm, managed.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cm)
}

// createNamespace creates a namespace on the managed cluster.
func createNamespace(ctx context.Context) string {
	GinkgoHelper()
	ns := name("ns")
	Expect(managed.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	return ns
}

// deleteWork deletes a ManifestWork and waits until it is gone.
func deleteWork(ctx context.Context, name string) {
	GinkgoHelper()
	Expect(hub.Delete(ctx, &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: clusterName, Name: name}})).To(Succeed())
	Eventually(func() error {
		return hub.Get(ctx, client.ObjectKey{Namespace: clusterName, Name: name}, &workv1.ManifestWork{})
	}).WithContext(ctx).WithTimeout(timeout).Should(MatchError(ContainSubstring("not found")))
}

func toUnstructured(o obj) *unstructured.Unstructured {
	GinkgoHelper()
	raw, err := json.Marshal(o)
	Expect(err).NotTo(HaveOccurred())
	u := &unstructured.Unstructured{}
	Expect(u.UnmarshalJSON(raw)).To(Succeed())
	return u
}
