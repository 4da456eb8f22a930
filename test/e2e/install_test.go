package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The namespaces and names corral init and join install into.
const (
	hubNamespace   = "open-cluster-management-hub"
	agentNamespace = "open-cluster-management-agent"
	// installTimeout bounds an install, upgrade or removal on the busy
	// 2-core machine: image rollouts on real nodes, webhooks answering.
	installTimeout = 6 * time.Minute
	// takeoverTimeout bounds a takeover: the 15 s lease of a killed
	// leader, the 2 s retry, and a busy machine.
	takeoverTimeout = 90 * time.Second
)

// installSample is a Placement choosing every cluster of the default set
// and a ManifestWorkReplicaSet delivering a ConfigMap whose data is value.
func installSample(value string) string {
	return fmt.Sprintf(`apiVersion: cluster.open-cluster-management.io/v1beta2
kind: ManagedClusterSetBinding
metadata: {name: default, namespace: default}
spec: {clusterSet: default}
---
apiVersion: cluster.open-cluster-management.io/v1beta1
kind: Placement
metadata: {name: installed, namespace: default}
spec: {clusterSets: [default]}
---
apiVersion: work.open-cluster-management.io/v1alpha1
kind: ManifestWorkReplicaSet
metadata: {name: installed, namespace: default}
spec:
  placementRefs: [{name: installed}]
  manifestWorkTemplate:
    workload:
      manifests:
      - apiVersion: v1
        kind: ConfigMap
        metadata: {name: installed, namespace: default}
        data: {value: %q}
`, value)
}

var _ = Describe("corral init and corral join, installing corral into a fleet's clusters as real pods", Ordered, func() {
	var dir, hub string
	var clusters = []string{"cluster1", "cluster2"}
	kubeconfigOf := func(cluster string) string { return filepath.Join(dir, cluster, "kubeconfig") }
	// version is bin/corral's; upgrade is a second build of corral, of
	// upgradeVersion, whose image the nodes hold too.
	var version, upgradeVersion, upgrade string

	BeforeAll(func() {
		dir = newFleetDir()
		hub = filepath.Join(dir, "hub", "kubeconfig")
		r := corral(cliTimeout, "version", "--short")
		Expect(r.code).To(Equal(0), "%s", r)
		version = strings.TrimSpace(r.out)
		upgradeVersion = version + "-upgrade"
		archive := filepath.Join(binDir, "image", "corral.tar")
		Expect(exists(archive)).To(BeTrue(), "%s is missing: run make image", archive)
		var upgradeArchive string
		upgrade, upgradeArchive = buildUpgrade(upgradeVersion)

		startFleet(dir, "--no-corral")
		for _, a := range []string{archive, upgradeArchive} {
			r := corral(cliTimeout, "dev", "load", "--dir", dir, a)
			Expect(r.code).To(Equal(0), "%s", r)
		}
	})

	var joinLine []string
	It("corral init installs the hub as 2 restricted pods that serve its webhooks through their Service", func() {
		start := time.Now()
		r := corral(installTimeout, "init", "--kubeconfig", hub, "--timeout", installTimeout.String())
		Expect(r.code).To(Equal(0), "%s", r)
		fmt.Fprintf(GinkgoWriter, "MEASURE corral init to serving: %s\n", time.Since(start).Round(100*time.Millisecond))
		Expect(r.out).To(ContainSubstring("Installing the corral hub " + version))
		Expect(r.out).To(ContainSubstring("[4/4]"))
		joinLine = joinArgs(r.out)

		Expect(jsonpath(hub, "-n", hubNamespace, "get", "deployment", "corral-hub", "{.status.readyReplicas}")).To(Equal("2"))
		Expect(jsonpath(hub, "-n", hubNamespace, "get", "deployment", "corral-hub", "{.spec.template.spec.containers[0].image}")).
			To(Equal("ghcr.io/corral-dev/corral:"+version), "the image of init's own version, by default")
		Expect(jsonpath(hub, "-n", hubNamespace, "get", "pods", "-l", "app.kubernetes.io/name=corral-hub",
			"{range .items[*]}{.spec.securityContext.runAsUser} {.spec.containers[0].securityContext.readOnlyRootFilesystem}\n{end}")).
			To(Equal("65532 true\n65532 true"))

		By("the hub's pods staying up: their liveness and readiness probes answer")
		Consistently(func() string {
			return jsonpath(hub, "-n", hubNamespace, "get", "pods", "-l", "app.kubernetes.io/name=corral-hub", "{.items[*].status.containerStatuses[0].restartCount}")
		}).WithTimeout(45*time.Second).WithPolling(5*time.Second).Should(Equal("0 0"), "the kubelet restarts a hub whose probes fail (every 30 s)")

		By("the API server reaching the validating webhook through the Service: a name that is no DNS label is refused")
		bad := writeManifest("apiVersion: cluster.open-cluster-management.io/v1\nkind: ManagedCluster\nmetadata: {name: not.a.label}\nspec: {hubAcceptsClient: false}\n")
		r = kubectl(hub, "apply", "--dry-run=server", "-f", bad)
		Expect(r.code).NotTo(Equal(0), "%s", r)
		Expect(r.errOut).To(ContainSubstring("managedclustervalidators.admission.cluster.open-cluster-management.io"))

		By("corral get hub-info showing the version, the replicas and the leader")
		r = corral(cliTimeout, "get", "hub-info", "--kubeconfig", hub)
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(r.out).To(ContainSubstring("version:  " + version))
		Expect(r.out).To(ContainSubstring("2 ready, 2 up to date, of 2"))
		Expect(r.out).To(MatchRegexp(`leader \(lease corral-hub\): corral-hub-\S+`))
	})

	It("corral join --wait installs each agent, and returns once the hub accepted the cluster and it is Available", func() {
		var wg sync.WaitGroup
		results := make([]result, len(clusters))
		start := time.Now()
		for i, c := range clusters {
			wg.Go(func() {
				defer GinkgoRecover()
				results[i] = corral(installTimeout, append(joinLine, "--cluster-name", c, "--kubeconfig", kubeconfigOf(c), "--wait", "--timeout", installTimeout.String())...)
			})
		}
		r := corral(installTimeout, append([]string{"accept", "--wait", "--timeout", installTimeout.String(), "--kubeconfig", hub}, clusters...)...)
		Expect(r.code).To(Equal(0), "%s", r)
		wg.Wait()
		fmt.Fprintf(GinkgoWriter, "MEASURE corral join --wait to Available (both, accepted meanwhile): %s\n", time.Since(start).Round(100*time.Millisecond))
		for _, r := range results {
			Expect(r.code).To(Equal(0), "%s", r)
			Expect(r.out).To(ContainSubstring("Available"))
		}
		for _, c := range clusters {
			Expect(jsonpath(kubeconfigOf(c), "-n", agentNamespace, "get", "deployment", "corral-agent", "{.status.readyReplicas}")).To(Equal("2"))
			r := corral(cliTimeout, "get", "agent-info", "--kubeconfig", kubeconfigOf(c))
			Expect(r.code).To(Equal(0), "%s", r)
			Expect(r.out).To(ContainSubstring("cluster: " + c))
		}
		reportRSS()
	})

	It("places and delivers a work through the installed hub and agents", func() {
		r := corral(cliTimeout, append([]string{"addon", "enable", "work", "--kubeconfig", hub, "--clusters"}, strings.Join(clusters, ","))...)
		Expect(r.code).To(Equal(0), "%s", r)
		applyYAML(hub, installSample("one"))
		for _, c := range clusters {
			expectConfigMap(kubeconfigOf(c), "one")
		}
	})

	It("survives kill -9 of the leading hub pod: the other replica takes over within the lease, and accepts and works in flight complete", func() {
		pod := leaderPod(hub, hubNamespace, "corral-hub")
		applyYAML(hub, installSample("two"))
		applyYAML(hub, "apiVersion: cluster.open-cluster-management.io/v1\nkind: ManagedCluster\nmetadata: {name: in-flight}\nspec: {hubAcceptsClient: true}\n")
		killed := killPod(hub, hubNamespace, pod, "hub")
		expectTakeover(hub, hubNamespace, "corral-hub", pod, killed)
		for _, c := range clusters {
			expectConfigMap(kubeconfigOf(c), "two")
		}
		Eventually(func() string {
			return jsonpath(hub, "get", "managedcluster", "in-flight", `{.status.conditions[?(@.type=="HubAcceptedManagedCluster")].status}`)
		}).WithTimeout(takeoverTimeout).WithPolling(time.Second).Should(Equal("True"))
		Expect(kubectl(hub, "delete", "managedcluster", "in-flight", "--wait=false").code).To(Equal(0))
	})

	It("survives kill -9 of the leading agent pod of a cluster: the other replica takes over, and the cluster stays Available", func() {
		c := kubeconfigOf(clusters[0])
		pod := leaderPod(c, agentNamespace, "corral-agent")
		watch := watchAvailable(hub, clusters)
		killed := killPod(c, agentNamespace, pod, "agent")
		expectTakeover(c, agentNamespace, "corral-agent", pod, killed)
		applyYAML(hub, installSample("three"))
		expectConfigMap(c, "three")
		Expect(watch()).To(BeEmpty(), "a cluster left Available while its agent was replaced")
	})

	It("upgrades the hub and the agents to a second build with its init and join, with no cluster going Unknown", func() {
		watch := watchAvailable(hub, clusters)
		image := "ghcr.io/corral-dev/corral:" + upgradeVersion
		newCorral := func(args ...string) result {
			GinkgoHelper()
			return command{bin: upgrade, args: args, timeout: installTimeout}.run()
		}
		r := newCorral("init", "--kubeconfig", hub, "--timeout", installTimeout.String())
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(r.out).To(ContainSubstring("Upgrading the corral hub"))
		Expect(r.out).To(ContainSubstring("from " + version + " to " + upgradeVersion))
		joinLine = joinArgs(r.out)
		for _, c := range clusters {
			r := newCorral(append(joinLine, "--cluster-name", c, "--kubeconfig", kubeconfigOf(c), "--wait", "--timeout", installTimeout.String())...)
			Expect(r.code).To(Equal(0), "%s", r)
			Expect(r.out).To(ContainSubstring("from " + version + " to " + upgradeVersion))
			Expect(jsonpath(kubeconfigOf(c), "-n", agentNamespace, "get", "deployment", "corral-agent", "{.spec.template.spec.containers[0].image}")).To(Equal(image))
		}
		Expect(jsonpath(hub, "-n", hubNamespace, "get", "deployment", "corral-hub", "{.spec.template.spec.containers[0].image}")).To(Equal(image))
		applyYAML(hub, installSample("four"))
		for _, c := range clusters {
			expectConfigMap(kubeconfigOf(c), "four")
		}
		Expect(watch()).To(BeEmpty(), "a cluster left Available during the upgrade")
	})

	It("corral unjoin and corral clean take it all out again, leaving nothing of corral behind", func() {
		for _, c := range clusters {
			r := corral(installTimeout, "unjoin", "--yes", "--cluster-name", c, "--kubeconfig", kubeconfigOf(c), "--timeout", installTimeout.String())
			Expect(r.code).To(Equal(0), "%s", r)
			expectNothingOfCorral(kubeconfigOf(c), "open-cluster-management-agent", "open-cluster-management-agent-addon")
		}
		r := corral(installTimeout, "clean", "--yes", "--kubeconfig", hub, "--timeout", installTimeout.String())
		Expect(r.code).To(Equal(0), "%s", r)
		expectNothingOfCorral(hub, hubNamespace, "open-cluster-management")
		Expect(jsonpath(hub, "get", "crd", "-o", "name")).NotTo(ContainSubstring("open-cluster-management.io"))
	})

	It("helm install of the charts gives the same hub and agents as the CLI", func() {
		helm := filepath.Join(binDir, "helm")
		Expect(exists(helm)).To(BeTrue(), "%s is missing: run make helm", helm)
		for _, chart := range []string{"corral-hub", "corral-agent"} {
			r := command{bin: helm, args: []string{"lint", chartDir(chart), "--strict", "--set", "clusterName=c1,bootstrapHubKubeconfig=x", "--namespace", agentNamespace}, timeout: cliTimeout}.run()
			Expect(r.code).To(Equal(0), "%s", r)
		}
		By("helm template rendering the objects corral init --output yaml prints")
		r := command{bin: helm, args: []string{"template", "corral-hub", chartDir("corral-hub"), "-n", hubNamespace, "--include-crds", "--set", "image.tag=" + version}, timeout: cliTimeout}.run()
		Expect(r.code).To(Equal(0), "%s", r)
		helmObjects := objectNames(r.out)
		r = corral(cliTimeout, "init", "--output", "yaml")
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(objectNames(r.out)).To(ConsistOf(append(helmObjects, "Namespace "+hubNamespace)), "init adds the release namespace, as helm --create-namespace does")

		r = command{bin: helm, args: []string{"install", "corral-hub", chartDir("corral-hub"), "-n", hubNamespace, "--create-namespace",
			"--set", "image.tag=" + version, "--wait", "--timeout", installTimeout.String()}, env: []string{"KUBECONFIG=" + hub}, timeout: installTimeout}.run()
		Expect(r.code).To(Equal(0), "%s", r)
		bootstrap := filepath.Join(GinkgoT().TempDir(), "bootstrap.kubeconfig")
		r = corral(cliTimeout, "get", "token", "--kubeconfig", hub, "--bootstrap-kubeconfig", bootstrap)
		Expect(r.code).To(Equal(0), "%s", r)
		c := clusters[0]
		r = command{bin: helm, args: []string{"install", "corral-agent", chartDir("corral-agent"), "-n", agentNamespace, "--create-namespace",
			"--set", "clusterName=" + c, "--set-file", "bootstrapHubKubeconfig=" + bootstrap, "--set", "image.tag=" + version,
			"--wait", "--timeout", installTimeout.String()}, env: []string{"KUBECONFIG=" + kubeconfigOf(c)}, timeout: installTimeout}.run()
		Expect(r.code).To(Equal(0), "%s", r)
		r = corral(installTimeout, "accept", c, "--wait", "--timeout", installTimeout.String(), "--kubeconfig", hub)
		Expect(r.code).To(Equal(0), "%s", r)
		Eventually(func() string {
			return jsonpath(hub, "get", "managedcluster", c, `{.status.conditions[?(@.type=="ManagedClusterConditionAvailable")].status}`)
		}).WithTimeout(installTimeout).WithPolling(time.Second).Should(Equal("True"))
		r = corral(cliTimeout, "get", "hub-info", "--kubeconfig", hub)
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(r.out).To(ContainSubstring("2 ready, 2 up to date, of 2"))
	})
})

// buildUpgrade builds a second corral, of version, for this machine's
// platform, and its image as make image makes one; it returns the program
// (whose init and join install that image by default) and the image's
// archive.
func buildUpgrade(version string) (program, archive string) {
	GinkgoHelper()
	root := filepath.Dir(binDir)
	tmp := GinkgoT().TempDir()
	program = filepath.Join(tmp, "corral-linux-"+runtime.GOARCH)
	const pkg = "github.com/corral-dev/corral/internal/version"
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X "+pkg+".version="+version+" -X "+pkg+".commit=e2e", "-o", program, "./cmd/corral")
	build.Dir, build.Env = root, append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	out, err := build.CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "building corral %s:\n%s", version, out)
	archive = filepath.Join(tmp, "corral-upgrade.tar")
	image := exec.Command("go", "run", "./hack/image", "build", "--title", "corral", "--ref", "ghcr.io/corral-dev/corral:"+version,
		"--version", version, "--revision", "e2e", "--created", "0", "--layout", filepath.Join(tmp, "layout"), "--archive", archive,
		runtime.GOARCH+"="+program)
	image.Dir = root
	out, err = image.CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "building the image of corral %s:\n%s", version, out)
	return program, archive
}

// objectNames are the "Kind name" of every object of a YAML stream, sorted.
func objectNames(stream string) []string {
	var names []string
	kind := ""
	for _, line := range strings.Split(stream, "\n") {
		switch {
		case strings.HasPrefix(line, "kind: "):
			kind = strings.TrimPrefix(line, "kind: ")
		case strings.HasPrefix(line, "  name: ") && kind != "":
			names = append(names, kind+" "+strings.TrimPrefix(line, "  name: "))
			kind = ""
		case line == "---":
			kind = ""
		}
	}
	sort.Strings(names)
	return names
}

// chartDir is the directory of one of the charts.
func chartDir(name string) string {
	return filepath.Join(filepath.Dir(binDir), "deploy", "charts", name)
}

// joinArgs are the arguments of the join line init printed, without the
// cluster name placeholder.
func joinArgs(out string) []string {
	GinkgoHelper()
	m := regexp.MustCompile(`corral join (--hub-apiserver \S+ --hub-token \S+)`).FindStringSubmatch(out)
	Expect(m).NotTo(BeNil(), "no join line in:\n%s", out)
	return append([]string{"join"}, strings.Fields(m[1])...)
}

// jsonpath prints template of what args get on the cluster of kubeconfig.
func jsonpath(kubeconfig string, args ...string) string {
	GinkgoHelper()
	template := args[len(args)-1]
	r := kubectl(kubeconfig, append(args[:len(args)-1], "-o", "jsonpath="+template)...)
	if r.code != 0 {
		return "error: " + r.errOut
	}
	return strings.TrimSpace(r.out)
}

// leaseHolder is the holder of the Lease namespace/name.
func leaseHolder(kubeconfig, namespace, name string) string {
	return jsonpath(kubeconfig, "-n", namespace, "get", "lease", name, "{.spec.holderIdentity}")
}

// leaderPod is the pod that holds the Lease namespace/name: its holder
// identity is the pod's host name, then "_" and a unique suffix.
func leaderPod(kubeconfig, namespace, name string) string {
	GinkgoHelper()
	holder := leaseHolder(kubeconfig, namespace, name)
	pod, _, ok := strings.Cut(holder, "_")
	Expect(ok).To(BeTrue(), "lease %s/%s is held by %q, not a pod", namespace, name, holder)
	return pod
}

// killPod kills pod, of namespace of the cluster of kubeconfig, as a node
// that dies would: its corral process (hub or agent, by mode) with
// SIGKILL, so that it releases nothing, then the pod. It finds the process
// on this machine, whose real nodes run the pods, by the pod's UID in its
// cgroup, and returns when it killed it.
func killPod(kubeconfig, namespace, pod, mode string) time.Time {
	GinkgoHelper()
	uid := jsonpath(kubeconfig, "-n", namespace, "get", "pod", pod, "{.metadata.uid}")
	Expect(uid).NotTo(BeEmpty())
	for _, p := range processesMentioning("/corral\x00" + mode + "\x00") {
		pid, err := strconv.Atoi(strings.SplitN(p, ":", 2)[0])
		if err != nil {
			continue
		}
		cgroup, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
		if err != nil || !strings.Contains(string(cgroup), "pod"+uid) && !strings.Contains(string(cgroup), "pod"+strings.ReplaceAll(uid, "-", "_")) {
			continue
		}
		Expect(syscall.Kill(pid, syscall.SIGKILL)).To(Succeed())
		killed := time.Now()
		fmt.Fprintf(GinkgoWriter, "killed corral %s (pid %d) of pod %s\n", mode, pid, pod)
		// The pod goes too, as with a node that died: the kubelet would
		// otherwise restart the process in the same pod, and that one may
		// win the Lease as well as the other replica.
		r := kubectl(kubeconfig, "-n", namespace, "delete", "pod", pod, "--grace-period=0", "--force", "--wait=false")
		Expect(r.code).To(Equal(0), "%s", r)
		return killed
	}
	Fail(fmt.Sprintf("no corral %s process of pod %s (uid %s) on this machine", mode, pod, uid))
	return time.Time{}
}

// expectTakeover waits until another pod than killed holds the Lease
// namespace/name, and says how long that took: the killed leader's lease
// (15 s) runs out first.
func expectTakeover(kubeconfig, namespace, name, killed string, at time.Time) {
	GinkgoHelper()
	Eventually(func() string {
		holder := leaseHolder(kubeconfig, namespace, name)
		pod, _, ok := strings.Cut(holder, "_")
		if !ok {
			return killed // released, or unreadable: no new leader yet
		}
		return pod
	}).WithTimeout(takeoverTimeout).WithPolling(250 * time.Millisecond).ShouldNot(Equal(killed))
	took := time.Since(at)
	fmt.Fprintf(GinkgoWriter, "MEASURE takeover of lease %s/%s after kill -9 of its holder: %s (lease 15s)\n", namespace, name, took.Round(100*time.Millisecond))
	Expect(took).To(BeNumerically("<", 2*15*time.Second), "the other replica took longer than twice the lease to take over")
}

// expectConfigMap waits until the sample's ConfigMap on the cluster of
// kubeconfig holds value.
func expectConfigMap(kubeconfig, value string) {
	GinkgoHelper()
	Eventually(func() string {
		return jsonpath(kubeconfig, "-n", "default", "get", "configmap", "installed", "{.data.value}")
	}).
		WithTimeout(installTimeout).WithPolling(time.Second).Should(Equal(value))
}

// watchAvailable polls the clusters' Available condition on hub until the
// returned func is called, which returns every time one was not True.
func watchAvailable(hub string, clusters []string) func() []string {
	stop := make(chan struct{})
	done := make(chan []string)
	go func() {
		defer GinkgoRecover()
		var seen []string
		for {
			select {
			case <-stop:
				done <- seen
				return
			case <-time.After(2 * time.Second):
			}
			for _, c := range clusters {
				s := jsonpath(hub, "get", "managedcluster", c, `{.status.conditions[?(@.type=="ManagedClusterConditionAvailable")].status}`)
				if s != "True" {
					seen = append(seen, fmt.Sprintf("%s %s: %s", time.Now().Format(time.TimeOnly), c, s))
				}
			}
		}
	}()
	return func() []string {
		close(stop)
		return <-done
	}
}

// expectNothingOfCorral expects no namespace of namespaces and no cluster
// role, binding or CRD of corral's left on the cluster of kubeconfig.
func expectNothingOfCorral(kubeconfig string, namespaces ...string) {
	GinkgoHelper()
	for _, ns := range namespaces {
		Eventually(func() string { return kubectl(kubeconfig, "get", "namespace", ns).errOut }).
			WithTimeout(installTimeout).WithPolling(time.Second).Should(ContainSubstring("NotFound"), "namespace %s", ns)
	}
	for _, kind := range []string{"clusterroles", "clusterrolebindings"} {
		Expect(jsonpath(kubeconfig, "get", kind, "-l", "app.kubernetes.io/part-of=corral", "{.items[*].metadata.name}")).To(BeEmpty(), "%s left", kind)
	}
}

// reportRSS prints the resident memory of the installed hub's and agents'
// processes, which run on this machine's real nodes.
func reportRSS() {
	for _, mode := range []string{"hub", "agent"} {
		for _, p := range processesMentioning("/corral\x00" + mode + "\x00") {
			pid, err := strconv.Atoi(strings.SplitN(p, ":", 2)[0])
			if err != nil {
				continue
			}
			status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
			if err != nil {
				continue
			}
			for _, line := range strings.Split(string(status), "\n") {
				if strings.HasPrefix(line, "VmRSS:") {
					fmt.Fprintf(GinkgoWriter, "MEASURE RSS %s: %s\n", p, strings.TrimSpace(strings.TrimPrefix(line, "VmRSS:")))
				}
			}
		}
	}
}
