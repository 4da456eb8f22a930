package realnode

import (
	"fmt"
	"net"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIDFor(t *testing.T) {
	hex6 := regexp.MustCompile(`^[0-9a-f]{6}$`)
	cases := map[string]struct {
		dir  string
		want string
	}{
		// Known values: a fleet started again by a newer corral in the same
		// directory must find what the earlier one left.
		"a fleet's directory":   {dir: "/home/dev/fleet", want: "e649df"},
		"another one":           {dir: "/home/dev/other", want: "7432de"},
		"a temporary directory": {dir: t.TempDir()},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := IDFor(tc.dir)
			if !hex6.MatchString(got) {
				t.Errorf("IDFor(%q) = %q, want six hex digits", tc.dir, got)
			}
			if again := IDFor(tc.dir); again != got {
				t.Errorf("IDFor(%q) = %q, then %q", tc.dir, got, again)
			}
			if tc.want != "" && got != tc.want {
				t.Errorf("IDFor(%q) = %q, want %q", tc.dir, got, tc.want)
			}
			if other := IDFor(tc.dir + "-2"); other == got {
				t.Errorf("IDFor(%q) = IDFor(%q) = %q", tc.dir, tc.dir+"-2", got)
			}
		})
	}
}

func TestNetworkNode(t *testing.T) {
	cases := map[string]struct {
		net  Network
		i    int
		name string
		want NodeNet
		ns   string
	}{
		"first node": {
			net: Network{ID: "a1b2c3", Octet: 200}, i: 0, name: "c1-node",
			want: NodeNet{Network: Network{ID: "a1b2c3", Octet: 200}, Name: "c1-node", IP: "10.200.0.10", PodCIDR: "10.200.1.0/24", HostVeth: "crla1b2c3n0"},
			ns:   "corral-a1b2c3-c1-node",
		},
		"third node": {
			net: Network{ID: "a1b2c3", Octet: 200}, i: 2, name: "c3-node",
			want: NodeNet{Network: Network{ID: "a1b2c3", Octet: 200}, Name: "c3-node", IP: "10.200.0.12", PodCIDR: "10.200.3.0/24", HostVeth: "crla1b2c3n2"},
			ns:   "corral-a1b2c3-c3-node",
		},
		"another network": {
			net: Network{ID: "ffffff", Octet: 249}, i: 99, name: "hub",
			want: NodeNet{Network: Network{ID: "ffffff", Octet: 249}, Name: "hub", IP: "10.249.0.109", PodCIDR: "10.249.100.0/24", HostVeth: "crlffffffn99"},
			ns:   "corral-ffffff-hub",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := tc.net.Node(tc.i, tc.name)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Node(%d, %q) (-want +got):\n%s", tc.i, tc.name, diff)
			}
			if ns := got.NetNS(); ns != tc.ns {
				t.Errorf("NetNS() = %q, want %q", ns, tc.ns)
			}
			// The node's address is on the host's /24, its pods' network
			// is not.
			_, bridge, err := net.ParseCIDR(tc.net.HostIP() + "/24")
			if err != nil {
				t.Fatal(err)
			}
			if !bridge.Contains(net.ParseIP(got.IP)) {
				t.Errorf("node address %s is not on the bridge's network %s", got.IP, bridge)
			}
			if _, pods, err := net.ParseCIDR(got.PodCIDR); err != nil || pods.Contains(net.ParseIP(tc.net.HostIP())) {
				t.Errorf("pod network %s: %v, or it holds the host's address %s", got.PodCIDR, err, tc.net.HostIP())
			}
		})
	}
}

func TestNetworkAddresses(t *testing.T) {
	n := Network{ID: "a1b2c3", Octet: 217}
	if got, want := n.Bridge(), "crla1b2c3"; got != want {
		t.Errorf("Bridge() = %q, want %q", got, want)
	}
	if got, want := n.HostIP(), "10.217.0.1"; got != want {
		t.Errorf("HostIP() = %q, want %q", got, want)
	}
}

// TestInterfaceNamesFitLinux: Linux refuses an interface name longer than
// 15 bytes (IFNAMSIZ-1); the bridge, the host's end of each veth pair and
// its peer (named with a "p" after it) must fit, for any id.
func TestInterfaceNamesFitLinux(t *testing.T) {
	const ifNameMax = 15
	for _, id := range []string{"000000", "ffffff", IDFor(t.TempDir())} {
		n := Network{ID: id, Octet: 249}
		if b := n.Bridge(); len(b) > ifNameMax {
			t.Errorf("bridge %q is %d bytes long", b, len(b))
		}
		for i := range 100 {
			nn := n.Node(i, fmt.Sprintf("c%d-node", i))
			for _, name := range []string{nn.HostVeth, nn.HostVeth + "p"} {
				if len(name) > ifNameMax {
					t.Errorf("node %d of network %s: interface %q is %d bytes long", i, id, name, len(name))
				}
			}
		}
	}
}

// TestNodeNamesAreDistinct: two nodes of a fleet, or the same node of two
// fleets, never share an interface, an address or a namespace.
func TestNodeNamesAreDistinct(t *testing.T) {
	seen := map[string]string{}
	for _, n := range []Network{{ID: "a1b2c3", Octet: 200}, {ID: "d4e5f6", Octet: 201}} {
		for i := range 100 {
			nn := n.Node(i, fmt.Sprintf("c%d-node", i))
			who := fmt.Sprintf("node %d of %s", i, n.ID)
			for _, v := range []string{nn.HostVeth, nn.IP, nn.PodCIDR, nn.NetNS()} {
				if other, ok := seen[v]; ok {
					t.Errorf("%s and %s both have %s", other, who, v)
				}
				seen[v] = who
			}
		}
	}
}

func mustCIDRs(t *testing.T, cidrs ...string) []*net.IPNet {
	t.Helper()
	var nets []*net.IPNet
	for _, c := range cidrs {
		_, n, err := net.ParseCIDR(c)
		if err != nil {
			t.Fatal(err)
		}
		nets = append(nets, n)
	}
	return nets
}

func TestPickOctet(t *testing.T) {
	var all []string
	for o := firstOctet; o <= lastOctet; o++ {
		all = append(all, fmt.Sprintf("10.%d.0.0/16", o))
	}
	cases := map[string]struct {
		used    []string
		want    int
		wantErr bool
	}{
		"nothing used":                       {want: 200},
		"other networks":                     {used: []string{"192.168.0.0/16", "172.17.0.0/16", "10.199.255.255/32", "10.250.0.0/16"}, want: 200},
		"an address in the first":            {used: []string{"10.200.3.4/32"}, want: 201},
		"a route to part of the first":       {used: []string{"10.200.128.0/17"}, want: 201},
		"the first two, one by one":          {used: []string{"10.200.0.0/24", "10.201.7.0/24"}, want: 202},
		"a route over the first two":         {used: []string{"10.200.0.0/15"}, want: 202},
		"a route over the first and below":   {used: []string{"10.192.0.0/12"}, want: 208},
		"every network but the last":         {used: all[:len(all)-1], want: 249},
		"a route over all of them":           {used: []string{"10.0.0.0/8"}, wantErr: true},
		"every network of the range, singly": {used: all, wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := pickOctet(mustCIDRs(t, tc.used...))
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), "10.200.0.0/16") || !strings.Contains(err.Error(), "10.249.0.0/16") {
					t.Errorf("pickOctet(%v) = %d, %v; want an error naming 10.200.0.0/16 to 10.249.0.0/16", tc.used, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("pickOctet(%v) = %d, %v; want %d", tc.used, got, err, tc.want)
			}
		})
	}
}

// Output of `ip -4 -o addr show` and `ip -4 route show table all` on a
// machine running a fleet on 10.200.0.0/16.
const (
	sampleAddrs = `1: lo    inet 127.0.0.1/8 scope host lo\       valid_lft forever preferred_lft forever
4: eth0    inet 192.0.2.2/24 brd 192.0.2.255 scope global eth0\       valid_lft forever preferred_lft forever
10: crl7618cb    inet 10.200.0.1/24 scope global crl7618cb\       valid_lft forever preferred_lft forever
`
	sampleRoutes = `default via 192.0.2.1 dev eth0 
10.200.0.0/24 dev crl7618cb proto kernel scope link src 10.200.0.1 
10.200.1.0/24 via 10.200.0.10 dev crl7618cb 
192.0.2.0/24 dev eth0 proto kernel scope link src 192.0.2.2 
local 10.200.0.1 dev crl7618cb table local proto kernel scope host src 10.200.0.1 
broadcast 10.200.0.255 dev crl7618cb table local proto kernel scope link src 10.200.0.1 
local 127.0.0.0/8 dev lo table local proto kernel scope host src 127.0.0.1 
`
)

func TestParseNets(t *testing.T) {
	cases := map[string]struct {
		out  string
		want []string
	}{
		"addresses": {
			out:  sampleAddrs,
			want: []string{"127.0.0.0/8", "192.0.2.0/24", "192.0.2.255/32", "10.200.0.0/24"},
		},
		"routes": {
			out: sampleRoutes,
			want: []string{
				"192.0.2.1/32",
				"10.200.0.0/24", "10.200.0.1/32",
				"10.200.1.0/24", "10.200.0.10/32",
				"192.0.2.0/24", "192.0.2.2/32",
				"10.200.0.1/32", "10.200.0.1/32",
				"10.200.0.255/32", "10.200.0.1/32",
				"127.0.0.0/8", "127.0.0.1/32",
			},
		},
		"default and the unspecified address": {
			out:  "default via 192.0.2.1 dev eth0\nunreachable default dev lo proto kernel metric 4294967295\nblackhole 0.0.0.0 dev lo\n",
			want: []string{"192.0.2.1/32"},
		},
		"IPv6": {
			out:  "1: lo    inet6 ::1/128 scope host\n2: eth0    inet6 fe80::1/64 scope link\nfe80::/64 dev eth0 proto kernel metric 256\n2001:db8::1 dev eth0\n",
			want: nil,
		},
		"nothing": {},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, n := range parseNets(tc.out) {
				got = append(got, n.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("parseNets (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPickOctetOfParsedNets: a second fleet beside one on 10.200.0.0/16
// takes the next network.
func TestPickOctetOfParsedNets(t *testing.T) {
	got, err := pickOctet(parseNets(sampleAddrs + sampleRoutes))
	if err != nil || got != 201 {
		t.Errorf("pickOctet = %d, %v; want 201", got, err)
	}
}

func TestVethsOf(t *testing.T) {
	out := "1: lo: <LOOPBACK,UP> mtu 65536\n" +
		"167: crlabc123n0p@crlabc123n0: <BROADCAST> mtu 1500\n" +
		"168: crlabc123n0@crlabc123n0p: <BROADCAST> mtu 1500\n" +
		"169: crlabc123n12: <BROADCAST> mtu 1500\n" +
		"170: crlabc123: <BROADCAST> mtu 1500\n" +
		"171: crlother1n0@crlother1n0p: <BROADCAST> mtu 1500\n"
	got := vethsOf("abc123", out)
	if want := []string{"crlabc123n0", "crlabc123n12"}; !slices.Equal(got, want) {
		t.Errorf("vethsOf = %v, want %v: the fleet's host ends only, not peers, bridge or another fleet's", got, want)
	}
}
