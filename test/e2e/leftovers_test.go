package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// machineState is what a fleet may add to the machine and must take away:
// mounts, top-level cgroups, network namespaces, network links and the
// host's nftables and iptables rules. Processes are checked apart, by what
// names the fleet (processesMentioning, fleetCgroupProcesses).
type machineState struct {
	Mounts, Cgroups, NetNS, Links, NFT, IPTables []string
}

// readMachineState reads the machine's state now.
func readMachineState() machineState {
	GinkgoHelper()
	var s machineState
	b, err := os.ReadFile("/proc/self/mountinfo")
	Expect(err).NotTo(HaveOccurred())
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if f := strings.Fields(line); len(f) > 4 {
			s.Mounts = append(s.Mounts, f[4]) // the mount point
		}
	}
	hierarchies, err := filepath.Glob("/sys/fs/cgroup/*")
	Expect(err).NotTo(HaveOccurred())
	hierarchies = append(hierarchies, "/sys/fs/cgroup")
	for _, h := range hierarchies {
		entries, err := os.ReadDir(h)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.IsDir() {
				s.Cgroups = append(s.Cgroups, filepath.Join(h, e.Name()))
			}
		}
	}
	s.NetNS = outputLines("ip", "netns", "list")
	for _, l := range outputLines("ip", "-o", "link", "show") {
		if f := strings.Fields(l); len(f) > 1 {
			s.Links = append(s.Links, strings.TrimSuffix(f[1], ":"))
		}
	}
	s.NFT = outputLines("nft", "list", "ruleset")
	for _, l := range outputLines("iptables-save") {
		if !strings.HasPrefix(l, "#") { // comments carry the time
			s.IPTables = append(s.IPTables, strings.TrimSpace(stripCounters(l)))
		}
	}
	for _, list := range [][]string{s.Mounts, s.Cgroups, s.NetNS, s.Links, s.NFT, s.IPTables} {
		sort.Strings(list)
	}
	return s
}

// stripCounters drops a chain's packet counters ("[12:345]").
func stripCounters(l string) string {
	if i := strings.LastIndex(l, " ["); i > 0 && strings.HasPrefix(l, ":") {
		return l[:i]
	}
	return l
}

// outputLines runs a command and returns its non-empty output lines; a
// command that is not installed has none.
func outputLines(name string, args ...string) []string {
	GinkgoHelper()
	if _, err := exec.LookPath(name); err != nil {
		return nil
	}
	out, err := exec.Command(name, args...).Output()
	Expect(err).NotTo(HaveOccurred(), "%s %v", name, args)
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// fleetCgroupProcesses lists the processes in the cgroups of the fleet
// with id: a real node's containers, which outlive its containerd and name
// nothing of the fleet on their command lines.
func fleetCgroupProcesses(id string) []string {
	dirs, err := filepath.Glob("/sys/fs/cgroup/*/corral-" + id + "-*")
	Expect(err).NotTo(HaveOccurred())
	seen := map[string]bool{}
	var pids []string
	for _, d := range dirs {
		_ = filepath.WalkDir(d, func(path string, e os.DirEntry, err error) error {
			if err != nil {
				return nil //nolint:nilerr // a cgroup removed meanwhile holds no process
			}
			if e.IsDir() || e.Name() != "cgroup.procs" {
				return nil
			}
			b, _ := os.ReadFile(path)
			for _, pid := range strings.Fields(string(b)) {
				if !seen[pid] {
					seen[pid] = true
					pids = append(pids, pid)
				}
			}
			return nil
		})
	}
	return pids
}
