package fleet

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/corral-dev/corral/dev/localcluster"
	"github.com/corral-dev/corral/dev/realnode"
)

// Phase is where a fleet's supervisor is in its life.
type Phase string

const (
	PhaseStarting Phase = "Starting"
	PhaseRunning  Phase = "Running"
	PhaseFailed   Phase = "Failed"
	PhaseStopping Phase = "Stopping"
	PhaseStopped  Phase = "Stopped"
)

// Names inside a fleet directory.
const (
	stateFile = "fleet.json"
	// LogFile is the supervisor's log, which holds its progress lines.
	LogFile = "fleet.log"
	// ControllersLogFile holds the logs of the hub's controllers and the
	// agents the supervisor runs.
	ControllersLogFile = "controllers.log"
	howtoFile          = "HOWTO.txt"
	// HubName names the hub cluster and its directory.
	HubName = "hub"
)

// State is what a fleet's supervisor records in <dir>/fleet.json.
type State struct {
	Dir        string         `json:"dir"`
	Supervisor int            `json:"supervisorPID"`
	Phase      Phase          `json:"phase"`
	Message    string         `json:"message,omitempty"`
	Started    time.Time      `json:"started"`
	Clusters   []ClusterState `json:"clusters"`
	// Sample says the fleet deploys the sample app (SampleApp).
	Sample bool `json:"sample,omitempty"`
	// Propagated says the fleet deploys, with the sample app, a hub
	// Deployment (PropagatedApp) through the propagation addon.
	Propagated bool `json:"propagated,omitempty"`
	// NoCorral says that only the clusters run (dev up --no-corral).
	NoCorral bool `json:"noCorral,omitempty"`
	// Network is the real nodes' network; nil without real nodes.
	Network *realnode.Network `json:"network,omitempty"`
}

// ClusterState is one cluster of a fleet.
type ClusterState struct {
	Name       string               `json:"name"`
	Profile    localcluster.Profile `json:"profile"`
	Dir        string               `json:"dir"`
	Kubeconfig string               `json:"kubeconfig"`
	Server     string               `json:"server,omitempty"`
	// Node is the cluster's real node, if it has one.
	Node       string                   `json:"node,omitempty"`
	Components []localcluster.Component `json:"components,omitempty"`
}

// ErrNoFleet is returned when a directory holds no fleet record.
var ErrNoFleet = errors.New("no fleet")

// ReadState reads <dir>/fleet.json.
func ReadState(dir string) (*State, error) {
	b, err := os.ReadFile(filepath.Join(dir, stateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w in %s", ErrNoFleet, dir)
	}
	if err != nil {
		return nil, err
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s is damaged (%w): remove %s and start again", stateFile, err, dir)
	}
	return &s, nil
}

// write replaces <dir>/fleet.json atomically, so readers never see half.
func (s *State) write() error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(s.Dir, stateFile+".tmp")
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(s.Dir, stateFile))
}

// ManagedClusters says "1 managed cluster", "2 managed clusters".
func ManagedClusters(n int) string {
	if n == 1 {
		return "1 managed cluster"
	}
	return fmt.Sprintf("%d managed clusters", n)
}

// ClusterNames are the names of a fleet with n managed clusters, hub first.
func ClusterNames(n int) []string {
	names := []string{HubName}
	for i := 1; i <= n; i++ {
		names = append(names, fmt.Sprintf("cluster%d", i))
	}
	return names
}
