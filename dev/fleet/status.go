package fleet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/corral-dev/corral/dev/localcluster"
)

// Health values of a cluster in a status report.
const (
	Healthy   = "Healthy"
	Unhealthy = "Unhealthy"
	Stopped   = "Stopped"
)

// ClusterStatus is what Status found about one cluster.
type ClusterStatus struct {
	ClusterState `json:",inline"`
	Health       string `json:"health"`
	// Problems says what is wrong when the cluster is not Healthy.
	Problems []string `json:"problems,omitempty"`
	// ReadyNodes and Nodes count the cluster's nodes.
	ReadyNodes int `json:"readyNodes"`
	Nodes      int `json:"nodes"`
	// RealNode is the cluster's real node and the pods on it, when it has
	// one.
	RealNode *RealNodeStatus `json:"realNode,omitempty"`
}

// RealNodeStatus is a real node and what runs on it.
type RealNodeStatus struct {
	Name  string      `json:"name"`
	Ready bool        `json:"ready"`
	Pods  []PodStatus `json:"pods"`
}

// PodStatus is one pod on a real node.
type PodStatus struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Phase     string `json:"phase"`
	// Ready is "ready/containers", as kubectl get pods shows it.
	Ready string `json:"ready"`
}

// Report is the answer to Status.
type Report struct {
	Dir        string          `json:"dir"`
	Phase      Phase           `json:"phase"`
	Supervisor int             `json:"supervisorPID"`
	Running    bool            `json:"running"`
	Message    string          `json:"message,omitempty"`
	Clusters   []ClusterStatus `json:"clusters"`
}

// Healthy reports whether the supervisor runs and every cluster is healthy.
func (r *Report) Healthy() bool {
	if !r.Running {
		return false
	}
	for _, c := range r.Clusters {
		if c.Health != Healthy {
			return false
		}
	}
	return true
}

// Abandoned reports whether the record says the fleet was starting, running
// or stopping while no supervisor holds it: the supervisor died.
func (r *Report) Abandoned() bool {
	return !r.Running && (r.Phase == PhaseStarting || r.Phase == PhaseRunning || r.Phase == PhaseStopping)
}

// Status checks the fleet recorded in dir: whether its supervisor holds the
// directory, whether each recorded process is alive, and whether each API
// server is ready and each node Ready.
func Status(ctx context.Context, dir string) (*Report, error) {
	state, err := ReadState(dir)
	if err != nil {
		return nil, err
	}
	r := &Report{Dir: dir, Phase: state.Phase, Supervisor: state.Supervisor, Message: state.Message,
		Running: localcluster.Locked(dir)}
	for _, cs := range state.Clusters {
		r.Clusters = append(r.Clusters, clusterStatus(ctx, cs))
	}
	return r, nil
}

func clusterStatus(ctx context.Context, cs ClusterState) ClusterStatus {
	st := ClusterStatus{ClusterState: cs, Health: Healthy}
	alive := 0
	for i, comp := range cs.Components {
		st.Components[i].Running = ProcessAlive(comp.PID, cs.Dir)
		if st.Components[i].Running {
			alive++
		} else {
			st.Problems = append(st.Problems, comp.Name+" is not running")
		}
	}
	if alive == 0 {
		st.Health = Stopped
		st.Problems = nil
		return st
	}
	if err := apiReady(ctx, cs, &st); err != nil {
		st.Problems = append(st.Problems, err.Error())
	}
	if len(st.Problems) > 0 {
		st.Health = Unhealthy
	}
	return st
}

// apiReady asks the cluster's API server for /readyz and counts its nodes.
func apiReady(ctx context.Context, cs ClusterState, st *ClusterStatus) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", cs.Kubeconfig)
	if err != nil {
		return err
	}
	cfg.Timeout = 5 * time.Second
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	if _, err := client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx); err != nil {
		return fmt.Errorf("kube-apiserver is not ready: %w", err)
	}
	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing nodes: %w", err)
	}
	st.Nodes = len(nodes.Items)
	for _, n := range nodes.Items {
		ready := localcluster.NodeReady(&n)
		if ready {
			st.ReadyNodes++
		}
		if n.Name == cs.Node {
			st.RealNode = &RealNodeStatus{Name: n.Name, Ready: ready}
		}
	}
	if cs.Node != "" {
		if st.RealNode == nil {
			return fmt.Errorf("its real node %s has not registered", cs.Node)
		}
		if st.RealNode.Pods, err = podsOn(ctx, client, cs.Node); err != nil {
			return err
		}
	}
	if st.ReadyNodes < st.Nodes {
		return fmt.Errorf("%d of %d nodes are not Ready", st.Nodes-st.ReadyNodes, st.Nodes)
	}
	return nil
}

// podsOn lists the pods on node.
func podsOn(ctx context.Context, client kubernetes.Interface, node string) ([]PodStatus, error) {
	pods, err := client.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
	if err != nil {
		return nil, fmt.Errorf("listing the pods on %s: %w", node, err)
	}
	out := make([]PodStatus, 0, len(pods.Items))
	for _, p := range pods.Items {
		ready := 0
		for _, c := range p.Status.ContainerStatuses {
			if c.Ready {
				ready++
			}
		}
		out = append(out, PodStatus{Namespace: p.Namespace, Name: p.Name, Phase: string(p.Status.Phase),
			Ready: fmt.Sprintf("%d/%d", ready, len(p.Spec.Containers))})
	}
	return out, nil
}

// ProcessAlive reports whether pid runs and is the process started for the
// cluster in dir: every component's command line names a path in dir, which
// tells it from an unrelated process that got the pid later. A zombie's
// command line reads empty, so it does not count either.
func ProcessAlive(pid int, dir string) bool {
	if pid <= 0 || dir == "" {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	return strings.Contains(string(b), filepath.Clean(dir)+"/")
}
