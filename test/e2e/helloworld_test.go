package e2e

import (
	"os/exec"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"

	"github.com/corral-dev/corral/dev/fleet"
)

// itRunsTheHelloworldAddon adds, to the Ordered container of a running
// fleet of a hub and cluster1 and cluster2 with real nodes and the work
// addon, the spec of addon-framework's own helloworld example, built as
// `make ocm-tools` builds it and run as upstream documents: its hub half
// against the hub, told its agent's image by EXAMPLE_IMAGE_NAME; enabled
// on both clusters, its agent runs on each real node with no step by hand
// and the addon becomes Available. *dir is the fleet's directory.
func itRunsTheHelloworldAddon(dir *string) {
	It("runs addon-framework's helloworld example: its agent runs on both clusters' real nodes and the addon is Available", func() {
		bin := filepath.Join(binDir, "ocm-helloworld")
		Expect(bin).To(BeAnExistingFile(), "run make ocm-tools")
		hubKubeconfig := filepath.Join(*dir, "hub", "kubeconfig")
		clusters := []string{"cluster1", "cluster2"}

		By("creating its ClusterManagementAddOn and starting its hub half against the hub")
		r := kubectl(hubKubeconfig, "apply", "-f", writeManifest(`apiVersion: addon.open-cluster-management.io/v1alpha1
kind: ClusterManagementAddOn
metadata: {name: helloworld}
spec:
  addOnMeta: {displayName: helloworld, description: helloworld is an example addon created by go template}
  installStrategy: {type: Manual}
`))
		Expect(r.code).To(Equal(0), "%s", r)
		DeferCleanup(func() {
			r := kubectl(hubKubeconfig, "delete", "clustermanagementaddon", "helloworld", "--ignore-not-found")
			Expect(r.code).To(Equal(0), "%s", r)
		})
		cmd := exec.Command(bin, "controller", "--kubeconfig", hubKubeconfig)
		cmd.Env = append(environ(), "EXAMPLE_IMAGE_NAME="+fleet.HelloworldImage)
		session, err := gexec.Start(cmd, gexec.NewPrefixedWriter("[helloworld] ", GinkgoWriter), gexec.NewPrefixedWriter("[helloworld] ", GinkgoWriter))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() {
			session.Terminate()
			Eventually(session).WithTimeout(cliTimeout).Should(gexec.Exit())
		})

		By("enabling it on both clusters")
		r = corral(cliTimeout, "addon", "enable", "helloworld", "--clusters", "cluster1,cluster2", "--kubeconfig", hubKubeconfig)
		Expect(r.code).To(Equal(0), "%s", r)

		for _, cluster := range clusters {
			By("its agent runs on " + cluster + "'s real node, and the addon is Available there")
			expectAgentRunning(filepath.Join(*dir, cluster, "kubeconfig"), "open-cluster-management-agent-addon", "deployment/helloworld-agent", cluster+"-node")
			Eventually(func(g Gomega) {
				r := kubectl(hubKubeconfig, "-n", cluster, "get", "managedclusteraddon", "helloworld",
					"-o", `jsonpath={.status.conditions[?(@.type=="Available")].status}`)
				g.Expect(r.code).To(Equal(0), "%s", r)
				g.Expect(r.out).To(Equal("True"))
			}).WithTimeout(helloAddonTimeout).WithPolling(time.Second).Should(Succeed(), "helloworld Available on %s", cluster)
		}

		By("disabling it: its agent goes from both clusters")
		r = corral(cliTimeout, "addon", "disable", "helloworld", "--clusters", "cluster1,cluster2", "--yes", "--kubeconfig", hubKubeconfig)
		Expect(r.code).To(Equal(0), "%s", r)
		for _, cluster := range clusters {
			Eventually(func(g Gomega) {
				r := kubectl(filepath.Join(*dir, cluster, "kubeconfig"), "-n", "open-cluster-management-agent-addon", "get", "deployment", "helloworld-agent", "--ignore-not-found", "-o", "name")
				g.Expect(r.code).To(Equal(0), "%s", r)
				g.Expect(r.out).To(BeEmpty())
			}).WithTimeout(helloAddonTimeout).WithPolling(time.Second).Should(Succeed(), "the agent's Deployment on %s", cluster)
		}
	})
}
