package e2e

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"

	"github.com/corral-dev/corral/dev/fleet"
)

// helloDeploy holds the example's manifests, relative to this package.
const helloDeploy = "../../examples/hello-addon/deploy"

// helloAddonTimeout bounds each step of the hello addon's way to a cluster.
const helloAddonTimeout = 3 * time.Minute

// itRunsTheHelloAddon adds, to the Ordered container of a running fleet of
// a hub and cluster1 and cluster2 (both in the default set, with the work
// addon enabled, and real nodes), the spec that follows
// examples/hello-addon/README.md: the example's manager runs against the
// hub with the agent image the fleet loaded, the addon is enabled on the
// set, its agent arrives on each cluster as a ManifestWork, gets its own
// hub credentials, runs on the cluster's real node with no step by hand,
// reports to the hub and makes the addon Available; disabling the addon
// takes the credentials away. *dir is the fleet's directory.
func itRunsTheHelloAddon(dir *string) {
	It("runs the hello-addon example: its agent arrives on every cluster of the set, reports with its own credentials, and is Available", func() {
		helloBin := filepath.Join(binDir, "hello-addon")
		Expect(helloBin).To(BeAnExistingFile(), "run make examples")
		hubKubeconfig := filepath.Join(*dir, "hub", "kubeconfig")
		clusters := []string{"cluster1", "cluster2"}
		const addonNS = "open-cluster-management-agent-addon"

		By("applying the addon's ClusterManagementAddOn and starting its manager against the hub")
		r := kubectl(hubKubeconfig, "apply", "-f", filepath.Join(helloDeploy, "clustermanagementaddon.yaml"))
		Expect(r.code).To(Equal(0), "%s", r)
		startProcess("hello-addon manager", helloBin, "manager", "--kubeconfig", hubKubeconfig, "--agent-image", fleet.HelloAddonImage)

		By("enabling the addon on the default set")
		r = corral(cliTimeout, "addon", "enable", "hello", "--clusterset", "default", "--kubeconfig", hubKubeconfig)
		Expect(r.code).To(Equal(0), "%s", r)

		creds := map[string]string{}
		for _, cluster := range clusters {
			managed := filepath.Join(*dir, cluster, "kubeconfig")
			By("delivering the agent's Deployment to " + cluster + " as a ManifestWork, and its hub credentials as a Secret")
			Eventually(func(g Gomega) {
				r := kubectl(hubKubeconfig, "-n", cluster, "get", "manifestwork", "-l", "open-cluster-management.io/addon-name=hello", "-o", "name")
				g.Expect(r.code).To(Equal(0), "%s", r)
				g.Expect(r.out).To(ContainSubstring("addon-hello-deploy"))
			}).WithTimeout(helloAddonTimeout).WithPolling(time.Second).Should(Succeed(), "the ManifestWork for %s", cluster)
			Eventually(func(g Gomega) {
				r := kubectl(managed, "-n", addonNS, "get", "deployment", "hello-agent", "-o", "jsonpath={.spec.template.spec.containers[0].image}")
				g.Expect(r.code).To(Equal(0), "%s", r)
				g.Expect(r.out).To(Equal(fleet.HelloAddonImage))
			}).WithTimeout(helloAddonTimeout).WithPolling(time.Second).Should(Succeed(), "the agent's Deployment on %s", cluster)
			Eventually(func(g Gomega) {
				creds[cluster] = secretToDir(g, managed, addonNS, "hello-hub-kubeconfig")
			}).WithTimeout(helloAddonTimeout).WithPolling(time.Second).Should(Succeed(), "the hello-hub-kubeconfig Secret on %s", cluster)

			By("running the agent's pod on " + cluster + "'s real node, whose log kubectl logs shows")
			expectAgentRunning(managed, addonNS, "deployment/hello-agent", cluster+"-node")
		}

		for _, cluster := range clusters {
			managed := filepath.Join(*dir, cluster, "kubeconfig")
			r := kubectl(managed, "version", "-o", "json")
			Expect(r.code).To(Equal(0), "%s", r)
			var v struct {
				Server struct {
					GitVersion string `json:"gitVersion"`
				} `json:"serverVersion"`
			}
			Expect(json.Unmarshal([]byte(r.out), &v)).To(Succeed(), "%s", r)
			Expect(v.Server.GitVersion).NotTo(BeEmpty(), "%s", r)

			By("finding the ConfigMap hello with " + cluster + "'s version in its namespace on the hub")
			Eventually(func(g Gomega) {
				r := kubectl(hubKubeconfig, "-n", cluster, "get", "configmap", "hello", "-o", "jsonpath={.data}")
				g.Expect(r.code).To(Equal(0), "%s", r)
				var data map[string]string
				g.Expect(json.Unmarshal([]byte(r.out), &data)).To(Succeed(), "%s", r)
				g.Expect(data).To(HaveKeyWithValue("kubernetesVersion", v.Server.GitVersion))
				g.Expect(data).To(HaveKeyWithValue("greeting", "hello from "+cluster))
			}).WithTimeout(helloAddonTimeout).WithPolling(time.Second).Should(Succeed())

			By("seeing the addon Available on " + cluster + " from the agent's lease")
			Eventually(func(g Gomega) {
				r := kubectl(hubKubeconfig, "-n", cluster, "get", "managedclusteraddon", "hello",
					"-o", `jsonpath={.status.conditions[?(@.type=="Available")].status}`)
				g.Expect(r.code).To(Equal(0), "%s", r)
				g.Expect(r.out).To(Equal("True"))
			}).WithTimeout(helloAddonTimeout).WithPolling(time.Second).Should(Succeed())
		}
		r = corral(cliTimeout, "addon", "status", "hello", "--kubeconfig", hubKubeconfig)
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(r.out).To(MatchRegexp(`(?m)^cluster1\s+True\s`), "%s", r)
		Expect(r.out).To(MatchRegexp(`(?m)^cluster2\s+True\s`), "%s", r)

		By("refusing the agent anything beyond its own ConfigMap on the hub")
		asCluster1 := filepath.Join(creds["cluster1"], "kubeconfig")
		for _, args := range [][]string{
			{"-n", "cluster2", "get", "configmap", "hello"},                                          // another cluster's
			{"-n", "cluster1", "get", "secrets"},                                                     // anything else in its own namespace
			{"-n", "cluster1", "get", "managedclusteraddon", "hello"},                                // its own addon object
			{"-n", "cluster1", "patch", "configmap", "kube-root-ca.crt", "-p", `{"data":{"x":"y"}}`}, // another ConfigMap
		} {
			r := kubectl(asCluster1, args...)
			Expect(r.code).NotTo(Equal(0), "cluster1's hello agent may %v:\n%s", args, r)
			Expect(r.errOut).To(ContainSubstring("Forbidden"), "%s", r)
		}

		By("configuring the addon on every cluster by default, as the README does: the agents' Deployments take --interval=1m")
		r = kubectl(hubKubeconfig, "apply", "-f", filepath.Join(helloDeploy, "config.yaml"))
		Expect(r.code).To(Equal(0), "%s", r)
		r = kubectl(hubKubeconfig, "patch", "clustermanagementaddon", "hello", "--type", "merge", "-p",
			`{"spec":{"defaultConfigs":[{"group":"addon.open-cluster-management.io","resource":"addondeploymentconfigs","namespace":"default","name":"hello-config"}]}}`)
		Expect(r.code).To(Equal(0), "%s", r)
		for _, cluster := range clusters {
			Eventually(func(g Gomega) {
				r := kubectl(filepath.Join(*dir, cluster, "kubeconfig"), "-n", addonNS, "get", "deployment", "hello-agent", "-o", "jsonpath={.spec.template.spec.containers[0].args}")
				g.Expect(r.code).To(Equal(0), "%s", r)
				g.Expect(r.out).To(ContainSubstring("--interval=1m"))
			}).WithTimeout(helloAddonTimeout).WithPolling(time.Second).Should(Succeed(), "the agent's Deployment on %s", cluster)
			Eventually(func(g Gomega) {
				r := kubectl(hubKubeconfig, "-n", cluster, "get", "managedclusteraddon", "hello", "-o",
					`jsonpath={.status.configReferences[0].desiredConfig.specHash} {.status.configReferences[0].lastAppliedConfig.specHash} {.status.conditions[?(@.type=="Progressing")].reason}`)
				g.Expect(r.code).To(Equal(0), "%s", r)
				f := strings.Fields(r.out)
				g.Expect(f).To(HaveLen(3), "desired hash, last applied hash, Progressing reason: %s", r)
				g.Expect(f[1]).To(Equal(f[0]), "the config applied is the desired one")
				g.Expect(f[2]).To(Equal("Completed"))
			}).WithTimeout(helloAddonTimeout).WithPolling(time.Second).Should(Succeed(), "the config of the addon on %s", cluster)
		}

		By("accepting the README's install-by-placement manifests (server-side dry run)")
		r = kubectl(hubKubeconfig, "create", "namespace", "hello-addon")
		Expect(r.code).To(Equal(0), "%s", r)
		r = kubectl(hubKubeconfig, "apply", "--dry-run=server", "-f", filepath.Join(helloDeploy, "install-by-placement.yaml"))
		Expect(r.code).To(Equal(0), "%s", r)

		By("disabling the addon on the set: its credentials go from every cluster, and with them its hub Role")
		r = corral(cliTimeout, "addon", "disable", "hello", "--clusterset", "default", "--yes", "--kubeconfig", hubKubeconfig)
		Expect(r.code).To(Equal(0), "%s", r)
		for _, cluster := range clusters {
			managed := filepath.Join(*dir, cluster, "kubeconfig")
			Eventually(func(g Gomega) {
				r := kubectl(managed, "-n", addonNS, "get", "secret", "hello-hub-kubeconfig", "--ignore-not-found", "-o", "name")
				g.Expect(r.code).To(Equal(0), "%s", r)
				g.Expect(r.out).To(BeEmpty())
			}).WithTimeout(helloAddonTimeout).WithPolling(time.Second).Should(Succeed(), "the Secret on %s", cluster)
			Eventually(func(g Gomega) {
				r := kubectl(managed, "-n", addonNS, "get", "deployment", "hello-agent", "--ignore-not-found", "-o", "name")
				g.Expect(r.code).To(Equal(0), "%s", r)
				g.Expect(r.out).To(BeEmpty())
			}).WithTimeout(helloAddonTimeout).WithPolling(time.Second).Should(Succeed(), "the Deployment on %s", cluster)
			Eventually(func(g Gomega) {
				r := kubectl(filepath.Join(creds[cluster], "kubeconfig"), "-n", cluster, "get", "configmap", "hello")
				g.Expect(r.code).NotTo(Equal(0), "%s", r)
				g.Expect(r.errOut).To(ContainSubstring("Forbidden"), "%s", r)
			}).WithTimeout(helloAddonTimeout).WithPolling(time.Second).Should(Succeed(), "the hub Role of %s's agent", cluster)
		}
	})
}

// expectAgentRunning waits until the addon agent Deployment target in ns on
// the cluster of kubeconfig is Available, its pod on node, and until
// kubectl logs of it answers.
func expectAgentRunning(kubeconfig, ns, target, node string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		r := kubectl(kubeconfig, "-n", ns, "get", target, "-o", "name")
		g.Expect(r.code).To(Equal(0), "%s", r)
	}).WithTimeout(helloAddonTimeout).WithPolling(time.Second).Should(Succeed(), "%s delivered", target)
	// kubectl's own timeout, under the one the command runs with, so that a
	// failure is its message and not a killed process.
	r := command{bin: kubectlBin, timeout: helloAddonTimeout + time.Minute,
		args: []string{"--kubeconfig", kubeconfig, "-n", ns, "wait", "--for=condition=Available", target, "--timeout=" + helloAddonTimeout.String()}}.run()
	Expect(r.code).To(Equal(0), "%s", r)
	r = kubectl(kubeconfig, "-n", ns, "get", "pods", "-o", "jsonpath={.items[*].spec.nodeName}")
	Expect(r.code).To(Equal(0), "%s", r)
	Expect(strings.Fields(r.out)).To(ContainElement(node), "%s runs on the real node", target)
	Eventually(func(g Gomega) {
		r := kubectl(kubeconfig, "-n", ns, "logs", target)
		g.Expect(r.code).To(Equal(0), "%s", r)
		g.Expect(r.out).NotTo(BeEmpty())
	}).WithTimeout(helloAddonTimeout).WithPolling(time.Second).Should(Succeed(), "kubectl logs %s", target)
}

// startProcess starts bin with args, its output going to the GinkgoWriter
// prefixed with name, and stops it when the spec ends.
func startProcess(name, bin string, args ...string) {
	GinkgoHelper()
	cmd := exec.Command(bin, args...)
	cmd.Env = environ()
	session, err := gexec.Start(cmd, gexec.NewPrefixedWriter("["+name+"] ", GinkgoWriter), gexec.NewPrefixedWriter("["+name+"] ", GinkgoWriter))
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		session.Terminate()
		Eventually(session).WithTimeout(cliTimeout).Should(gexec.Exit())
	})
}

// secretToDir writes every key of the Secret ns/name on the cluster of
// kubeconfig into a new directory, as a pod would see it mounted, and
// returns the directory.
// The Secret's data stays out of the test's output: it holds a key.
func secretToDir(g Gomega, kubeconfig, ns, name string) string {
	cmd := exec.Command(kubectlBin, "--kubeconfig", kubeconfig, "-n", ns, "get", "secret", name, "-o", "jsonpath={.data}")
	cmd.Env = environ()
	out, err := cmd.Output()
	g.Expect(err).NotTo(HaveOccurred(), "kubectl get secret %s/%s", ns, name)
	var data map[string]string
	g.Expect(json.Unmarshal(out, &data)).To(Succeed())
	g.Expect(data).To(HaveKey("kubeconfig"))
	dir := GinkgoT().TempDir()
	for key, value := range data {
		b, err := base64.StdEncoding.DecodeString(value)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(os.WriteFile(filepath.Join(dir, key), b, 0o600)).To(Succeed())
	}
	return dir
}
