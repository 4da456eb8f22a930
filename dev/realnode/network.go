package realnode

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"slices"
	"strings"
)

// Network is the fleet's network: a bridge on the host, its address, and
// the addresses of the nodes behind it, all within 10.<Octet>.0.0/16.
type Network struct {
	// ID names everything the network and its nodes make.
	ID string
	// Octet is the second octet of the network's /16.
	Octet int
}

// Addresses the networks are drawn from: 10.200.0.0/16 to 10.249.0.0/16.
const (
	firstOctet = 200
	lastOctet  = 249
)

// IDFor is the id of the fleet in dir: six hex digits of its path, so a
// fleet that starts again in the same directory finds what an earlier one
// left.
func IDFor(dir string) string {
	sum := sha256.Sum256([]byte(dir))
	return hex.EncodeToString(sum[:3])
}

// Bridge is the name of the network's bridge on the host.
func (n Network) Bridge() string { return "crl" + n.ID }

// HostIP is the host's address on the bridge: the API servers listen there,
// so that nodes and pods reach them.
func (n Network) HostIP() string { return fmt.Sprintf("10.%d.0.1", n.Octet) }

// Node is the address of node index i (0 for the first) on the network.
func (n Network) Node(i int, name string) NodeNet {
	return NodeNet{
		Network:  n,
		Name:     name,
		IP:       fmt.Sprintf("10.%d.0.%d", n.Octet, 10+i),
		PodCIDR:  fmt.Sprintf("10.%d.%d.0/24", n.Octet, 1+i),
		HostVeth: fmt.Sprintf("crl%sn%d", n.ID, i),
	}
}

// NodeNet is one node's place on the network.
type NodeNet struct {
	Network Network
	// Name is the node's name.
	Name string
	// IP is the node's address; PodCIDR the /24 its pods get addresses in.
	IP, PodCIDR string
	// HostVeth is the host's end of the node's veth pair.
	HostVeth string
}

// NetNS is the name of the node's network namespace.
func (nn NodeNet) NetNS() string { return nsPrefix(nn.Network.ID) + nn.Name }

func nsPrefix(id string) string { return "corral-" + id + "-" }

// CreateNetwork makes the bridge of the fleet with id on a /16 nothing on
// the machine uses. What an earlier fleet with that id left is removed
// first.
func CreateNetwork(id string) (Network, error) {
	if err := RemoveLeftovers(id); err != nil {
		return Network{}, err
	}
	octet, err := freeOctet()
	if err != nil {
		return Network{}, err
	}
	n := Network{ID: id, Octet: octet}
	br := n.Bridge()
	steps := [][]string{
		{"link", "add", br, "type", "bridge"},
		{"addr", "add", n.HostIP() + "/24", "dev", br},
		{"link", "set", br, "up"},
	}
	for _, s := range steps {
		if err := ip(s...); err != nil {
			return Network{}, errors.Join(fmt.Errorf("creating the fleet's network: %w", err), n.Remove())
		}
	}
	return n, nil
}

// Remove deletes the bridge; the nodes' host ends and routes go with it.
func (n Network) Remove() error {
	if !linkExists(n.Bridge()) {
		return nil
	}
	return ip("link", "delete", n.Bridge())
}

// freeOctet is the first 10.x.0.0/16 of the range that no address or route
// on the machine overlaps.
func freeOctet() (int, error) {
	used, err := usedNets()
	if err != nil {
		return 0, err
	}
	return pickOctet(used)
}

// pickOctet is the first 10.x.0.0/16 of the range that none of used
// overlaps.
func pickOctet(used []*net.IPNet) (int, error) {
	for o := firstOctet; o <= lastOctet; o++ {
		_, mine, _ := net.ParseCIDR(fmt.Sprintf("10.%d.0.0/16", o))
		free := true
		for _, u := range used {
			if mine.Contains(u.IP) || u.Contains(mine.IP) {
				free = false
				break
			}
		}
		if free {
			return o, nil
		}
	}
	return 0, fmt.Errorf("every network from 10.%d.0.0/16 to 10.%d.0.0/16 is in use on this machine: stop a fleet (corral dev down) or free one", firstOctet, lastOctet)
}

// usedNets are the IPv4 networks of the machine's addresses and routes.
func usedNets() ([]*net.IPNet, error) {
	var nets []*net.IPNet
	for _, args := range [][]string{{"-4", "-o", "addr", "show"}, {"-4", "route", "show", "table", "all"}} {
		out, err := exec.Command("ip", args...).Output()
		if err != nil {
			return nil, fmt.Errorf("ip %s: %w", strings.Join(args, " "), err)
		}
		nets = append(nets, parseNets(string(out))...)
	}
	return nets, nil
}

// parseNets picks the IPv4 networks and addresses out of ip(8)'s output; an
// address alone counts as its /32.
func parseNets(out string) []*net.IPNet {
	var nets []*net.IPNet
	for _, f := range strings.Fields(out) {
		if _, n, err := net.ParseCIDR(f); err == nil && n.IP.To4() != nil {
			nets = append(nets, n)
		} else if i := net.ParseIP(f); i != nil && i.To4() != nil && !i.IsUnspecified() {
			nets = append(nets, &net.IPNet{IP: i, Mask: net.CIDRMask(32, 32)})
		}
	}
	return nets
}

// wire creates the node's namespace and veth pair: the node's end is eth0
// in the namespace, with the node's address and a default route to the
// host; the host routes the node's pod network to it.
func (nn NodeNet) wire() error {
	// A veth this node's last run left (its namespace deleted, the
	// kernel not done tearing it down yet) would make "link add" fail
	// with "File exists": it is this node's by name, so it goes first.
	if err := nn.removeHostVeth(); err != nil {
		return fmt.Errorf("wiring node %s: %w", nn.Name, err)
	}
	ns, peer := nn.NetNS(), nn.HostVeth+"p"
	in := func(args ...string) []string { return append([]string{"-n", ns}, args...) }
	steps := [][]string{
		{"netns", "add", ns},
		{"link", "add", nn.HostVeth, "type", "veth", "peer", "name", peer},
		{"link", "set", nn.HostVeth, "master", nn.Network.Bridge()},
		{"link", "set", nn.HostVeth, "up"},
		{"link", "set", peer, "netns", ns},
		in("link", "set", peer, "name", "eth0"),
		in("addr", "add", nn.IP+"/24", "dev", "eth0"),
		in("link", "set", "eth0", "up"),
		in("link", "set", "lo", "up"),
		in("route", "add", "default", "via", nn.Network.HostIP()),
		// The host's route to the node's pods is on the bridge, which
		// outlives the node's namespace: a node wired again (its cluster
		// retried on new ports) finds its route there, so it is replaced.
		{"route", "replace", nn.PodCIDR, "via", nn.IP, "dev", nn.Network.Bridge()},
	}
	for _, s := range steps {
		if err := ip(s...); err != nil {
			return fmt.Errorf("wiring node %s: %w", nn.Name, err)
		}
	}
	return nil
}

// unwire deletes the node's namespace, and with it the veth pair (the
// host's route to its pods stays with the bridge until the fleet's
// network goes, and wire replaces it). The kernel destroys a deleted
// namespace's devices later, on its own time, so the host's end of the
// pair is deleted here too: a fleet started again at once finds its name
// free.
func (nn NodeNet) unwire() error {
	return errors.Join(removeNetNS(nn.NetNS()), nn.removeHostVeth())
}

// removeHostVeth deletes the host's end of the node's veth pair (and so
// the pair), if it is there.
func (nn NodeNet) removeHostVeth() error {
	if !linkExists(nn.HostVeth) {
		return nil
	}
	if err := ip("link", "delete", nn.HostVeth); err != nil && linkExists(nn.HostVeth) {
		return err
	}
	return nil
}

// removeNetNS deletes the network namespace name, if there is one.
func removeNetNS(name string) error {
	names, err := netNSes(name)
	if err != nil {
		return err
	}
	if slices.Contains(names, name) {
		return ip("netns", "delete", name)
	}
	return nil
}

// netNSes lists the network namespaces whose names start with prefix.
func netNSes(prefix string) ([]string, error) {
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		return nil, fmt.Errorf("ip netns list: %w", err)
	}
	var names []string
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(f[0], prefix) {
			names = append(names, f[0])
		}
	}
	return names, nil
}

func linkExists(name string) bool {
	return exec.Command("ip", "link", "show", name).Run() == nil
}

// ip runs ip(8) with args.
func ip(args ...string) error {
	var stderr bytes.Buffer
	cmd := exec.Command("ip", args...)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("ip %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// removeVeths deletes the host's end of every veth pair of fleet id's
// nodes that is still there (its namespace gone before the kernel tore
// the pair down, or never wired into one).
func removeVeths(id string) error {
	out, err := exec.Command("ip", "-o", "link", "show").Output()
	if err != nil {
		return fmt.Errorf("ip link show: %w", err)
	}
	var errs []error
	for _, name := range vethsOf(id, string(out)) {
		errs = append(errs, NodeNet{HostVeth: name}.removeHostVeth())
	}
	return errors.Join(errs...)
}

// vethsOf picks, from the output of 'ip -o link show', the host ends of
// fleet id's node veths: crl<id>n<i>, not their crl<id>n<i>p peers.
func vethsOf(id, out string) []string {
	prefix := fmt.Sprintf("crl%sn", id)
	var names []string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimSuffix(f[1], ":"), "@")
		if rest, ok := strings.CutPrefix(name, prefix); ok && rest != "" && strings.Trim(rest, "0123456789") == "" {
			names = append(names, name)
		}
	}
	return names
}
