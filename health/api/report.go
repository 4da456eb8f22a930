package api

import (
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MaxNamesListed bounds the names a report lists (NotReady nodes).
const MaxNamesListed = 10

// Check is the result of one probe.
type Check struct {
	OK bool `json:"ok"`
	// Message says what failed, or what was seen.
	Message string `json:"message,omitempty"`
}

// Nodes is the nodes' readiness.
type Nodes struct {
	Total int `json:"total"`
	Ready int `json:"ready"`
	// NotReady names some of the nodes that are not Ready.
	NotReady []string `json:"notReady,omitempty"`
	// Error says why the nodes could not be listed.
	Error string `json:"error,omitempty"`
}

// Workload is one listed workload's state.
type Workload struct {
	WorkloadRef `json:",inline"`
	Available   bool   `json:"available"`
	Message     string `json:"message,omitempty"`
}

// Report is one round of probes, as the agent sends it.
type Report struct {
	// ProbeTime is when the agent probed; the hub treats a report older
	// than the configured staleAfter as a cluster that stopped reporting.
	ProbeTime metav1.Time `json:"probeTime"`
	Livez     Check       `json:"livez"`
	Readyz    Check       `json:"readyz"`
	Nodes     Nodes       `json:"nodes"`
	Workloads []Workload  `json:"workloads,omitempty"`
}

// SameAs says whether r and o found the same, whenever they probed.
func (r Report) SameAs(o Report) bool {
	r.ProbeTime, o.ProbeTime = metav1.Time{}, metav1.Time{}
	return equality.Semantic.DeepEqual(r, o)
}
