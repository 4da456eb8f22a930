package addons

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	ctrl "sigs.k8s.io/controller-runtime"
)

func TestWithAgents(t *testing.T) {
	hub := func(ctrl.Manager, HubEnv) error { return nil }
	agent := func(context.Context, AgentEnv) error { return nil }
	all := []Addon{
		{Name: "both", SetupHub: hub, RunAgent: agent},
		{Name: "hub", SetupHub: hub},
		{Name: "agent", RunAgent: agent},
	}
	if diff := cmp.Diff([]string{"both", "agent"}, Names(WithAgents(all))); diff != "" {
		t.Errorf("WithAgents (-want +got):\n%s", diff)
	}
	if got := Names(all); len(got) != 3 {
		t.Errorf("WithAgents changed its argument: %v", got)
	}
	for _, a := range all {
		if got, want := a.HubOnly(), a.Name == "hub"; got != want {
			t.Errorf("%s.HubOnly() = %t, want %t", a.Name, got, want)
		}
	}
}
