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
}
