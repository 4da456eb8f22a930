package e2e

import (
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/corral-dev/corral/dev/fleet"
	"github.com/corral-dev/corral/dev/image"
)

// rolloutTimeout bounds a rollout on both clusters' real nodes, as the
// hub's `kubectl rollout status` waits for it.
const rolloutTimeout = 3 * time.Minute

// itPropagatesHubObjects adds, to the Ordered container of a running fleet
// of a hub and cluster1 and cluster2 with the sample app, the propagation
// addon as a user meets it: dev up's propagated sample rolled out; a plain
// Deployment of 4 replicas on the hub delivered to both clusters by
// `corral propagate`, `kubectl rollout status` on the hub returning once
// both run it; an image edit rolled out as revision 2; a rollback to
// revision 1 restoring it everywhere; and the propagation's deletion
// taking the Deployments away. *dir is the fleet's directory and *up what
// dev up printed.
func itPropagatesHubObjects(dir *string, up *result) {
	const ns, app = "e2e-shop", "shop"
	const image1, image2 = fleet.SampleImage, "localhost/corral/sample-app:e2e-v2"
	hub := func() string { return filepath.Join(*dir, "hub", "kubeconfig") }
	managed := func(cluster string) string { return filepath.Join(*dir, cluster, "kubeconfig") }
	clusters := []string{"cluster1", "cluster2"}

	// onEveryCluster waits until the app's Deployment on each cluster runs
	// image, labelled with revision, with 4 replicas available.
	onEveryCluster := func(img, revision string) {
		GinkgoHelper()
		for _, cluster := range clusters {
			Eventually(func(g Gomega) {
				r := kubectl(managed(cluster), "-n", ns, "get", "deployment", app, "-o",
					`jsonpath={.spec.template.spec.containers[0].image} {.metadata.labels.apps\.corral\.dev/revision} {.status.availableReplicas} {.status.updatedReplicas}`)
				g.Expect(r.code).To(Equal(0), "%s", r)
				g.Expect(strings.Fields(r.out)).To(Equal([]string{img, revision, "4", "4"}), "image, revision label, available and updated replicas on %s", cluster)
			}).WithTimeout(rolloutTimeout).WithPolling(2 * time.Second).Should(Succeed())
		}
	}
	rolloutStatusOnHub := func() {
		GinkgoHelper()
		r := kubectl(hub(), "-n", ns, "rollout", "status", "deployment/"+app, "--timeout="+rolloutTimeout.String())
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(r.out).To(ContainSubstring(`deployment "` + app + `" successfully rolled out`))
	}

	It("dev up ends with its propagated sample rolled out, as kubectl rollout status on the hub says", func() {
		Expect(up.out).To(ContainSubstring(`kubectl rollout status deployment/` + fleet.PropagatedApp + ` on the hub: deployment "` + fleet.PropagatedApp + `" successfully rolled out`))
		r := kubectl(hub(), "-n", fleet.SampleNamespace, "rollout", "status", "deployment/"+fleet.PropagatedApp, "--timeout=30s")
		Expect(r.code).To(Equal(0), "%s", r)
	})

	It("delivers a hub Deployment of 4 replicas to both clusters; kubectl rollout status on the hub returns once both run it", func() {
		r := kubectl(hub(), "create", "namespace", ns)
		Expect(r.code).To(Equal(0), "%s", r)
		r = corral(cliTimeout, "clusterset", "bind", "default", "-n", ns, "--kubeconfig", hub())
		Expect(r.code).To(Equal(0), "%s", r)
		r = kubectl(hub(), "-n", ns, "create", "deployment", app, "--image="+image1, "--replicas=4")
		Expect(r.code).To(Equal(0), "%s", r)
		r = corral(cliTimeout, "propagate", "deployment/"+app, "-n", ns, "--clusters", "cluster1,cluster2", "--kubeconfig", hub())
		Expect(r.code).To(Equal(0), "%s", r)

		rolloutStatusOnHub()
		onEveryCluster(image1, "1")
		r = corral(cliTimeout, "propagation", "get", app, "-n", ns, "--kubeconfig", hub())
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(r.out).To(MatchRegexp(`(?m)^` + app + `\s+1/1\s+2 \(2 applied, 2 available, 0 failed\)`))
	})

	It("rolls an edit of the image out as revision 2 on both clusters, kubectl rollout status on the hub following it", func() {
		archive := filepath.Join(GinkgoT().TempDir(), "sample-app-v2.tar")
		Expect(image.WriteFile(archive, image.Spec{Ref: image2, Binary: filepath.Join(binDir, "sample-app")})).To(Succeed())
		r := corral(cliTimeout, "dev", "load", archive, "--dir", *dir)
		Expect(r.code).To(Equal(0), "%s", r)

		r = kubectl(hub(), "-n", ns, "set", "image", "deployment/"+app, "sample-app="+image2)
		Expect(r.code).To(Equal(0), "%s", r)
		rolloutStatusOnHub()
		onEveryCluster(image2, "2")
		r = corral(cliTimeout, "propagation", "history", app, "-n", ns, "--kubeconfig", hub())
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(r.out).To(MatchRegexp(`(?m)^2\s.*current`), "revision 2 is the newest")
	})

	It("rolls back to revision 1 on both clusters", func() {
		r := corral(cliTimeout, "propagation", "rollback", app, "-n", ns, "--to-revision", "1", "--yes", "--kubeconfig", hub())
		Expect(r.code).To(Equal(0), "%s", r)
		onEveryCluster(image1, "1")
		r = corral(cliTimeout, "propagation", "get", app, "-n", ns, "--kubeconfig", hub())
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(r.out).To(MatchRegexp(`(?m)^cluster1\s+1\s+True\s+True`))
		Expect(r.out).To(MatchRegexp(`(?m)^cluster2\s+1\s+True\s+True`))
	})

	It("takes the Deployments from both clusters when the propagation is deleted, and leaves the namespace it brought", func() {
		r := corral(cliTimeout, "propagation", "delete", app, "-n", ns, "--yes", "--kubeconfig", hub())
		Expect(r.code).To(Equal(0), "%s", r)
		for _, cluster := range clusters {
			Eventually(func(g Gomega) {
				r := kubectl(managed(cluster), "-n", ns, "get", "deployment", app, "--ignore-not-found", "-o", "name")
				g.Expect(r.code).To(Equal(0), "%s", r)
				g.Expect(r.out).To(BeEmpty(), "the Deployment on %s", cluster)
			}).WithTimeout(rolloutTimeout).WithPolling(2 * time.Second).Should(Succeed())
			r := kubectl(managed(cluster), "get", "namespace", ns, "-o", "jsonpath={.status.phase}")
			Expect(r.code).To(Equal(0), "%s", r)
			Expect(r.out).To(Equal("Active"), "namespace %s on %s: the cluster may share it, so it stays", ns, cluster)
		}
	})

	It("divides 6 replicas 2:1 with cluster2's image overridden, reports a hand edit on cluster1, and leaves cluster2's own Deployment under IfNoDiff", func() {
		const ns = "e2e-divide"
		By("cluster2 runs a Deployment legacy of its own, which the hub's differs from")
		for _, args := range [][]string{{"create", "namespace", ns}, {"-n", ns, "create", "deployment", "legacy", "--image=" + image1, "--replicas=0"}} {
			r := kubectl(managed("cluster2"), args...)
			Expect(r.code).To(Equal(0), "%s", r)
		}
		r := kubectl(hub(), "create", "namespace", ns)
		Expect(r.code).To(Equal(0), "%s", r)
		r = corral(cliTimeout, "clusterset", "bind", "default", "-n", ns, "--kubeconfig", hub())
		Expect(r.code).To(Equal(0), "%s", r)
		for _, args := range [][]string{{"create", "deployment", app, "--image=" + image1, "--replicas=6"}, {"create", "deployment", "legacy", "--image=" + image1, "--replicas=2"}} {
			r := kubectl(hub(), append([]string{"-n", ns}, args...)...)
			Expect(r.code).To(Equal(0), "%s", r)
		}
		applyYAML(hub(), `
apiVersion: cluster.open-cluster-management.io/v1beta1
kind: Placement
metadata: {name: both, namespace: `+ns+`}
spec:
  predicates:
  - requiredClusterSelector: {celSelector: {celExpressions: ["managedCluster.metadata.name in ['cluster1', 'cluster2']"]}}
---
apiVersion: apps.corral.dev/v1alpha1
kind: OverridePolicy
metadata: {name: cluster2-image, namespace: `+ns+`}
spec:
  resourceSelectors: [{group: apps, version: v1, kind: Deployment}]
  rules:
  - name: v2
    clusterSelector: {celSelector: {celExpressions: ["managedCluster.metadata.name == 'cluster2'"]}}
    images: [{tag: e2e-v2}]
---
apiVersion: apps.corral.dev/v1alpha1
kind: Propagation
metadata: {name: `+app+`, namespace: `+ns+`}
spec:
  resourceSelectors:
  - {group: apps, version: v1, kind: Deployment, name: `+app+`}
  - {group: apps, version: v1, kind: Deployment, name: legacy}
  placementRefs: [{name: both}]
  replicaScheduling:
    type: Divided
    weights:
    - {clusterSelector: {celSelector: {celExpressions: ["managedCluster.metadata.name == 'cluster1'"]}}, weight: 2}
    - {weight: 1}
  adoption: {takeOver: IfNoDiff}
`)

		By("4 replicas run on cluster1 with the hub's image, 2 on cluster2 with its override; the hub's rollout status sums them")
		for cluster, want := range map[string][]string{"cluster1": {image1, "4", "4"}, "cluster2": {image2, "2", "2"}} {
			Eventually(func(g Gomega) {
				r := kubectl(managed(cluster), "-n", ns, "get", "deployment", app, "-o",
					`jsonpath={.spec.template.spec.containers[0].image} {.spec.replicas} {.status.availableReplicas}`)
				g.Expect(r.code).To(Equal(0), "%s", r)
				g.Expect(strings.Fields(r.out)).To(Equal(want), "image, replicas and available replicas on %s", cluster)
			}).WithTimeout(rolloutTimeout).WithPolling(2 * time.Second).Should(Succeed())
		}
		r = kubectl(hub(), "-n", ns, "rollout", "status", "deployment/"+app, "--timeout="+rolloutTimeout.String())
		Expect(r.code).To(Equal(0), "%s", r)
		r = corral(cliTimeout, "propagation", "get", app, "-n", ns, "--cluster", "cluster2", "-o", "yaml", "--kubeconfig", hub())
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(r.out).To(And(ContainSubstring("image: "+image2), ContainSubstring("replicas: 2")))

		By("cluster2's own legacy is left as it was, and what differs is reported")
		r = kubectl(managed("cluster2"), "-n", ns, "get", "deployment", "legacy", "-o", `jsonpath={.spec.replicas} {.spec.template.spec.containers[0].image} {.metadata.ownerReferences}`)
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(strings.Fields(r.out)).To(Equal([]string{"0", image1}), "replicas, image, and no owner")
		driftOf := func(cluster string) string {
			r := kubectl(hub(), "-n", ns, "get", "propagation", app, "-o", `jsonpath={.status.clusters[?(@.cluster=="`+cluster+`")].drift}`)
			Expect(r.code).To(Equal(0), "%s", r)
			return r.out
		}
		Eventually(func() string { return driftOf("cluster2") }).WithTimeout(rolloutTimeout).WithPolling(2 * time.Second).Should(And(
			ContainSubstring(`"name":"legacy"`), ContainSubstring(`"reason":"NotAdopted"`),
			ContainSubstring(`{"cluster":"0","hub":"1","path":".spec.replicas"}`),
			ContainSubstring(`"path":".spec.template.spec.containers[0].image"`)))

		By("a hand edit on cluster1 is put back and reported, with both values")
		r = kubectl(managed("cluster1"), "-n", ns, "patch", "deployment", app, "--type=merge", "-p", `{"spec":{"revisionHistoryLimit":3}}`)
		Expect(r.code).To(Equal(0), "%s", r)
		Eventually(func() string { return driftOf("cluster1") }).WithTimeout(rolloutTimeout).WithPolling(2 * time.Second).Should(And(
			ContainSubstring(`"name":"`+app+`"`), ContainSubstring(`"reason":"PutBack"`),
			ContainSubstring(`{"cluster":"3","hub":"10","path":".spec.revisionHistoryLimit"}`)))
		r = kubectl(managed("cluster1"), "-n", ns, "get", "deployment", app, "-o", "jsonpath={.spec.revisionHistoryLimit}")
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(r.out).To(Equal("10"))

		By("deleting the propagation takes what it made, and leaves cluster2's legacy")
		r = corral(cliTimeout, "propagation", "delete", app, "-n", ns, "--yes", "--kubeconfig", hub())
		Expect(r.code).To(Equal(0), "%s", r)
		Eventually(func() string {
			return strings.TrimSpace(kubectl(managed("cluster2"), "-n", ns, "get", "deployment", "--ignore-not-found", "-o", "name").out)
		}).WithTimeout(rolloutTimeout).WithPolling(2 * time.Second).Should(Equal("deployment.apps/legacy"))
	})
}
