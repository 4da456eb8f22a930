package clientgates

import (
	"os"
	"testing"

	clientfeatures "k8s.io/client-go/features"
)

func TestSetTurnsWatchListOff(t *testing.T) {
	before := clientfeatures.FeatureGates()
	t.Cleanup(func() { clientfeatures.ReplaceFeatureGates(before) })
	t.Setenv(watchListEnv, "") // restored after the test; unset during it
	if err := os.Unsetenv(watchListEnv); err != nil {
		t.Fatal(err)
	}
	Set()
	if clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient) {
		t.Error("WatchListClient is on after Set")
	}
	if got, want := clientfeatures.FeatureGates().Enabled(clientfeatures.InformerResourceVersion), before.Enabled(clientfeatures.InformerResourceVersion); got != want {
		t.Errorf("another gate changed: InformerResourceVersion %v, want %v", got, want)
	}
}

func TestSetLeavesAUsersChoice(t *testing.T) {
	before := clientfeatures.FeatureGates()
	t.Cleanup(func() { clientfeatures.ReplaceFeatureGates(before) })
	t.Setenv(watchListEnv, "true")
	Set()
	if clientfeatures.FeatureGates() != before {
		t.Error("Set replaced the gates though KUBE_FEATURE_WatchListClient was set")
	}
}
