package agent

import (
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/corral-dev/corral/properties/api"
)

// Observed is what the agent collected on the managed cluster.
type Observed struct {
	Version     string
	Nodes       int
	Capacity    corev1.ResourceList
	Allocatable corev1.ResourceList
	Platform    string
	Product     string
	Region      string
	Zones       []string
}

// Collect sums up the nodes of a cluster whose API server reports
// version.
func Collect(version string, nodes []corev1.Node) Observed {
	o := Observed{Version: version, Nodes: len(nodes), Capacity: corev1.ResourceList{}, Allocatable: corev1.ResourceList{}}
	regions := map[string]int{}
	zones := map[string]bool{}
	for i := range nodes {
		n := &nodes[i]
		add(o.Capacity, n.Status.Capacity)
		add(o.Allocatable, n.Status.Allocatable)
		if r := n.Labels[corev1.LabelTopologyRegion]; r != "" {
			regions[r]++
		}
		if z := n.Labels[corev1.LabelTopologyZone]; z != "" {
			zones[z] = true
		}
	}
	o.Region = mostCommon(regions)
	for z := range zones {
		o.Zones = append(o.Zones, z)
	}
	sort.Strings(o.Zones)
	o.Platform = platform(nodes)
	o.Product = product(version, nodes)
	return o
}

func add(sum, l corev1.ResourceList) {
	for name, q := range l {
		total := sum[name]
		total.Add(q)
		sum[name] = total
	}
}

// mostCommon returns the value most nodes have, the first by name on a tie.
func mostCommon(counts map[string]int) string {
	best, n := "", 0
	for v, c := range counts {
		if c > n || (c == n && v < best) {
			best, n = v, c
		}
	}
	return best
}

// Platforms, by the scheme of a node's spec.providerID, with OCM's names.
var platforms = map[string]string{
	"aws": "AWS", "gce": "GCP", "azure": "Azure", "ibm": "IBM", "vsphere": "VSphere",
	"openstack": "OpenStack", "alicloud": "AlibabaCloud", "kwok": "Kwok",
}

func platform(nodes []corev1.Node) string {
	for i := range nodes {
		scheme, _, ok := strings.Cut(nodes[i].Spec.ProviderID, "://")
		if !ok {
			continue
		}
		if p, ok := platforms[strings.ToLower(scheme)]; ok {
			return p
		}
	}
	return "Other"
}

// product names the distribution, by the version's build suffix or the
// labels its nodes carry.
func product(version string, nodes []corev1.Node) string {
	switch {
	case strings.Contains(version, "-eks-"):
		return "EKS"
	case strings.Contains(version, "-gke."):
		return "GKE"
	case strings.Contains(version, "+k3s"):
		return "K3s"
	case strings.Contains(version, "+rke2"):
		return "RKE2"
	}
	for i := range nodes {
		for label, p := range map[string]string{"node.openshift.io/os_id": "OpenShift", "kubernetes.azure.com/cluster": "AKS"} {
			if _, ok := nodes[i].Labels[label]; ok {
				return p
			}
		}
	}
	return "Kubernetes"
}

// Claims are the well-known ClusterClaims o makes; empty values make none.
func (o Observed) Claims() []api.Claim {
	all := []api.Claim{
		{Name: api.ClaimKubeVersion, Value: o.Version},
		{Name: api.ClaimPlatform, Value: o.Platform},
		{Name: api.ClaimProduct, Value: o.Product},
		{Name: api.ClaimRegion, Value: o.Region},
		{Name: api.ClaimZones, Value: strings.Join(o.Zones, ",")},
		{Name: api.ClaimNodes, Value: strconv.Itoa(o.Nodes)},
	}
	out := all[:0]
	for _, c := range all {
		if c.Value != "" {
			out = append(out, c)
		}
	}
	return out
}

// canonical returns l with every quantity in its canonical form, so that
// two equal sums compare equal once encoded.
func canonical(l corev1.ResourceList) corev1.ResourceList {
	out := make(corev1.ResourceList, len(l))
	for name, q := range l {
		out[name] = resource.MustParse(q.String())
	}
	return out
}
