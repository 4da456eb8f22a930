package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/corral-dev/corral/dev/fleet"
	"github.com/corral-dev/corral/dev/localcluster"
)

func TestPrintTableListsRealNodesAndTheirPods(t *testing.T) {
	r := &fleet.Report{Dir: "/f", Phase: fleet.PhaseRunning, Supervisor: 7, Running: true, Clusters: []fleet.ClusterStatus{
		{ClusterState: fleet.ClusterState{Name: "hub", Profile: localcluster.ProfileHub}, Health: fleet.Healthy, ReadyNodes: 1, Nodes: 1,
			RealNode: &fleet.RealNodeStatus{Name: "hub-node", Ready: true}},
		{ClusterState: fleet.ClusterState{Name: "cluster1", Profile: localcluster.ProfileManaged}, Health: fleet.Healthy, ReadyNodes: 4, Nodes: 4,
			RealNode: &fleet.RealNodeStatus{Name: "cluster1-node", Ready: true, Pods: []fleet.PodStatus{
				{Namespace: "default", Name: "hello-a", Phase: "Running", Ready: "1/1"},
				{Namespace: "default", Name: "hello-b", Phase: "Pending", Ready: "0/1"},
			}}},
	}}
	var out bytes.Buffer
	printTable(&out, r)
	var got [][]string
	inNodes := false
	for _, line := range strings.Split(out.String(), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && f[0] == "REAL" {
			inNodes = true
			continue
		}
		if inNodes && len(f) > 0 {
			got = append(got, f)
		}
	}
	want := [][]string{
		{"hub-node", "true", "-"},
		{"cluster1-node", "true", "default/hello-a", "Running", "1/1"},
		{"default/hello-b", "Pending", "0/1"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("real nodes table (-want +got):\n%s\nall:\n%s", diff, out.String())
	}
	if !strings.Contains(out.String(), "cluster1  managed  Healthy") || !strings.Contains(out.String(), "4/4") {
		t.Errorf("cluster table lacks cluster1's 4/4 nodes:\n%s", out.String())
	}
}

func TestPrintTableWithoutRealNodesHasNoNodeTable(t *testing.T) {
	r := &fleet.Report{Dir: "/f", Phase: fleet.PhaseRunning, Running: true, Clusters: []fleet.ClusterStatus{
		{ClusterState: fleet.ClusterState{Name: "hub", Profile: localcluster.ProfileHub}, Health: fleet.Healthy},
	}}
	var out bytes.Buffer
	printTable(&out, r)
	if strings.Contains(out.String(), "REAL NODE") {
		t.Errorf("a fleet without real nodes lists them:\n%s", out.String())
	}
}
