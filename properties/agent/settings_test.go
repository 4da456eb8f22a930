package agent

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/corral-dev/corral/addons/configmapchannel"
	"github.com/corral-dev/corral/properties/api"
)

func every(d time.Duration) api.Settings {
	return api.Settings{CollectInterval: metav1.Duration{Duration: d}}
}

// testAgent is an agent of cluster c1 with opts, following its settings
// on a fake hub until the test ends.
func testAgent(t *testing.T, opts Options) (*Agent, *fake.Clientset) {
	hub := fake.NewClientset()
	opts.ClusterName, opts.Clock = "c1", clocktesting.NewFakeClock(time.Unix(1000, 0))
	a := &Agent{opts: opts, hub: hub, settings: newSettings(hub, opts)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.settings.Follow(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return a, hub
}

// TestInterval checks the agent collects as the hub's settings say
// unless its options set the interval. The following itself is
// addons/settings'.
func TestInterval(t *testing.T) {
	cases := map[string]struct {
		opts Options
		// hub, when set, is the interval of the hub's settings.
		hub  time.Duration
		want time.Duration
	}{
		"no settings: the default": {want: api.DefaultCollectInterval},
		"the hub's settings":       {hub: 10 * time.Second, want: 10 * time.Second},
		"opts.Interval wins":       {opts: Options{Interval: time.Minute}, hub: 10 * time.Second, want: time.Minute},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			a, hub := testAgent(t, tc.opts)
			if tc.hub > 0 {
				cm, err := configmapchannel.Object("c1", api.ConfigName, api.AddonName, every(tc.hub))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := hub.CoreV1().ConfigMaps("c1").Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
				// The follower has the ConfigMap once its interval is there.
				err = wait.PollUntilContextTimeout(context.Background(), time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
					return a.settings.Current() == every(tc.hub), nil
				})
				if err != nil {
					t.Fatalf("the agent did not follow the hub's interval %s", tc.hub)
				}
			}
			if got := a.interval(a.settings.Current()); got != tc.want {
				t.Errorf("interval %s, want %s", got, tc.want)
			}
		})
	}
}
