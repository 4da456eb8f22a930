package api

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AddonName is the properties addon's name.
const AddonName = "properties"

// ConfigMaps in the cluster namespace on the hub (addons/configmapchannel): the
// agent writes ReportName; the hub half writes ConfigName, the settings
// resolved from the addon's AddOnDeploymentConfig, which the agent
// follows.
const (
	ReportName = "properties-report"
	ConfigName = "properties-config"
)

// LabelClaimOwner marks the ClusterClaims the agent writes on the managed
// cluster; a claim without it is the user's.
const LabelClaimOwner = "properties.corral.io/managed"

// Well-known claims the agent writes. The first three are OCM's reserved
// names (cluster/v1alpha1 ReservedClusterClaimNames).
const (
	ClaimKubeVersion = "kubeversion.open-cluster-management.io"
	ClaimPlatform    = "platform.open-cluster-management.io"
	ClaimProduct     = "product.open-cluster-management.io"
	ClaimRegion      = "region.properties.corral.io"
	ClaimZones       = "zones.properties.corral.io"
	ClaimNodes       = "nodes.properties.corral.io"
)

// Bounds on claims, as the ClusterClaim and ManagedCluster CRDs have them
// for one claim, and OCM's registration agent's default for their number.
const (
	// MaxClaims is how many claims a cluster reports; the agent's own
	// come first, then the user's by name, and the rest are dropped.
	MaxClaims = 20
	// MaxClaimNameLength and MaxClaimValueLength bound one claim; a
	// longer one is dropped.
	MaxClaimNameLength  = 253
	MaxClaimValueLength = 1024
)

// Claim is one ClusterClaim.
type Claim struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Report is what the agent sends the hub.
type Report struct {
	// ObservedTime is when the agent collected it.
	ObservedTime metav1.Time `json:"observedTime"`
	// KubernetesVersion is the managed API server's git version.
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
	// Nodes is how many nodes the cluster has.
	Nodes int `json:"nodes"`
	// Capacity and Allocatable are summed over the nodes.
	Capacity    corev1.ResourceList `json:"capacity,omitempty"`
	Allocatable corev1.ResourceList `json:"allocatable,omitempty"`
	// Claims are the agent's and the user's ClusterClaims, bounded.
	Claims []Claim `json:"claims,omitempty"`
	// Dropped names the claims left out by the bounds.
	Dropped []string `json:"dropped,omitempty"`
}

// SameAs says whether r and o report the same properties, whenever they
// were observed.
func (r Report) SameAs(o Report) bool {
	r.ObservedTime, o.ObservedTime = metav1.Time{}, metav1.Time{}
	return equality.Semantic.DeepEqual(r, o)
}

// Bound returns own (the agent's claims, kept first) and user (sorted by
// name) within the bounds, and the names of the claims dropped. Both
// halves apply it: the hub does not trust a report to be bounded.
func Bound(own, user []Claim) (kept []Claim, dropped []string) {
	user = append([]Claim(nil), user...)
	sort.Slice(user, func(i, j int) bool { return user[i].Name < user[j].Name })
	seen := map[string]bool{}
	for _, c := range append(append([]Claim(nil), own...), user...) {
		switch {
		case seen[c.Name]:
			continue
		case c.Name == "" || c.Value == "":
			continue
		case len(c.Name) > MaxClaimNameLength || len(c.Value) > MaxClaimValueLength || len(kept) >= MaxClaims:
			dropped = append(dropped, truncate(c.Name, 64))
		default:
			kept = append(kept, c)
		}
		seen[c.Name] = true
	}
	if len(dropped) > MaxClaims {
		dropped = append(dropped[:MaxClaims], fmt.Sprintf("and %d more", len(dropped)-MaxClaims))
	}
	return kept, dropped
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
