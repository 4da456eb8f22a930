package realnode_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/corral-dev/corral/dev/realnode"
)

// timeout bounds each wait for the kernel to let go of what was removed.
const timeout = 30 * time.Second

var _ = Describe("a real node's network, namespace and cgroup", func() {
	var (
		id      string
		network realnode.Network
		node    realnode.Node
	)

	BeforeEach(func() {
		id = realnode.IDFor(GinkgoT().TempDir())
		var err error
		network, err = realnode.CreateNetwork(id)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { Expect(realnode.RemoveLeftovers(id)).To(Succeed()) })
		node = realnode.Node{
			Name: "n1", Dir: GinkgoT().TempDir(), CNIBinDir: "/usr/lib/cni",
			Net: network.Node(0, "n1"),
		}
	})

	It("CreateNetwork puts the host's address on a bridge of the fleet's own", func() {
		out := ipOut("-o", "-4", "addr", "show", "dev", network.Bridge())
		Expect(out).To(ContainSubstring(network.HostIP() + "/24"))
	})

	It("CreateNetwork picks another /16 for a second fleet", func() {
		other := realnode.IDFor(GinkgoT().TempDir())
		second, err := realnode.CreateNetwork(other)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { Expect(realnode.RemoveLeftovers(other)).To(Succeed()) })
		Expect(second.Octet).NotTo(Equal(network.Octet))
	})

	It("Prepare wires the node's namespace: from it the host's address answers, over the bridge", func() {
		Expect(node.Prepare()).To(Succeed())
		l, err := net.Listen("tcp", net.JoinHostPort(network.HostIP(), "0"))
		Expect(err).NotTo(HaveOccurred())
		defer l.Close()
		go func() {
			if c, err := l.Accept(); err == nil {
				_, _ = c.Write([]byte("hi\n"))
				_ = c.Close()
			}
		}()
		port := l.Addr().(*net.TCPAddr).Port
		out, err := exec.Command("nsenter", "--net=/run/netns/"+node.Net.NetNS(), "--", "bash", "-c",
			fmt.Sprintf("exec 3<>/dev/tcp/%s/%d && cat <&3", network.HostIP(), port)).CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "%s", out)
		Expect(string(out)).To(Equal("hi\n"))
		Expect(ipOut("-n", node.Net.NetNS(), "-o", "-4", "addr", "show", "dev", "eth0")).To(ContainSubstring(node.IP() + "/24"))
		Expect(ipOut("route", "show", node.PodCIDR())).To(ContainSubstring("via "+node.IP()), "the host routes the node's pods to it")
	})

	It("RemoveLeftovers, knowing only the fleet's id, kills what the node's cgroups hold and removes them, its namespace and the bridge", func() {
		Expect(node.Prepare()).To(Succeed())
		// A process that outlived its node (a container whose shim and
		// containerd died), in the node's cgroup on every hierarchy.
		sleeper := exec.Command("sleep", "1000")
		Expect(sleeper.Start()).To(Succeed())
		reaped := make(chan struct{})
		go func() { _ = sleeper.Wait(); close(reaped) }()
		cgroups, err := filepath.Glob("/sys/fs/cgroup/*/corral-" + id + "-n1")
		Expect(err).NotTo(HaveOccurred())
		Expect(cgroups).NotTo(BeEmpty())
		for _, cg := range cgroups {
			Expect(os.WriteFile(filepath.Join(cg, "node", "cgroup.procs"), []byte(strconv.Itoa(sleeper.Process.Pid)), 0o644)).To(Succeed())
		}

		Expect(realnode.RemoveLeftovers(id)).To(Succeed())
		Eventually(reaped).WithTimeout(timeout).Should(BeClosed(), "the process in the node's cgroup is killed")
		for _, cg := range cgroups {
			Expect(cg).NotTo(BeADirectory())
		}
		Expect(ipOut("netns", "list")).NotTo(ContainSubstring(node.Net.NetNS()))
		Expect(exec.Command("ip", "link", "show", network.Bridge()).Run()).To(HaveOccurred(), "the bridge is gone")
		Expect(ipOut("route", "show", node.PodCIDR())).To(BeEmpty(), "and the route to the node's pods")
	})

	It("RemoveLeftovers leaves another fleet's node alone", func() {
		other := realnode.IDFor(GinkgoT().TempDir())
		otherNet, err := realnode.CreateNetwork(other)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { Expect(realnode.RemoveLeftovers(other)).To(Succeed()) })
		otherNode := realnode.Node{Name: "n1", Dir: GinkgoT().TempDir(), CNIBinDir: "/usr/lib/cni", Net: otherNet.Node(0, "n1")}
		Expect(otherNode.Prepare()).To(Succeed())
		Expect(node.Prepare()).To(Succeed())

		Expect(realnode.RemoveLeftovers(id)).To(Succeed())
		Expect(ipOut("netns", "list")).To(ContainSubstring(otherNode.Net.NetNS()))
		Expect(exec.Command("ip", "link", "show", otherNet.Bridge()).Run()).To(Succeed())
		Expect(filepath.Glob("/sys/fs/cgroup/*/corral-" + other + "-n1")).NotTo(BeEmpty())
	})

	It("Prepare, after a run whose veth the kernel has not torn down yet, takes the node's name back", func() {
		// What a fleet stopped and started again at once can find: the
		// node's namespace deleted, its veth still there.
		Expect(exec.Command("ip", "link", "add", node.Net.HostVeth, "type", "veth", "peer", "name", node.Net.HostVeth+"p").Run()).To(Succeed())
		Expect(node.Prepare()).To(Succeed())
		Expect(ipOut("-n", node.Net.NetNS(), "-o", "-4", "addr", "show", "dev", "eth0")).To(ContainSubstring(node.IP() + "/24"))
	})

	It("Remove deletes the node's veth with its namespace, so its name is free at once", func() {
		Expect(node.Prepare()).To(Succeed())
		Expect(node.Remove()).To(Succeed())
		Expect(exec.Command("ip", "link", "show", node.Net.HostVeth).Run()).NotTo(Succeed(), "the host's end of the veth is still there")
	})

	It("RemoveLeftovers deletes a veth of the fleet's that no namespace holds", func() {
		Expect(exec.Command("ip", "link", "add", node.Net.HostVeth, "type", "veth", "peer", "name", node.Net.HostVeth+"p").Run()).To(Succeed())
		Expect(realnode.RemoveLeftovers(id)).To(Succeed())
		Expect(exec.Command("ip", "link", "show", node.Net.HostVeth).Run()).NotTo(Succeed(), "the stray veth is still there")
	})

	It("Prepare after Remove wires the node again: its cluster retried on new ports", func() {
		// The host's route to the node's pods outlives its namespace.
		Expect(node.Prepare()).To(Succeed())
		Expect(node.Remove()).To(Succeed())
		Expect(node.Prepare()).To(Succeed())
		Expect(ipOut("route", "show", node.PodCIDR())).To(ContainSubstring("via "+node.IP()), "the host routes the node's pods to it")
	})

	It("Remove of a node that never started does nothing and succeeds", func() {
		Expect(node.Remove()).To(Succeed())
	})
})

// ipOut runs ip(8) with args and returns its output.
func ipOut(args ...string) string {
	GinkgoHelper()
	out, err := exec.Command("ip", args...).CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "ip %s: %s", strings.Join(args, " "), out)
	return strings.TrimSpace(string(out))
}
