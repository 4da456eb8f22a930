package agent

import (
	"context"
	"errors"
	"testing"
	"time"

	placementapi "github.com/corral-dev/corral/placement/api"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"
	clusterfake "open-cluster-management.io/api/client/cluster/clientset/versioned/fake"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
)

var t0 = time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)

func items(cpu, mem int32) []clusterv1alpha1.AddOnPlacementScoreItem {
	return []clusterv1alpha1.AddOnPlacementScoreItem{{Name: placementapi.ScoreCPU, Value: cpu}, {Name: placementapi.ScoreMemory, Value: mem}}
}

func TestNeedsWrite(t *testing.T) {
	validFor := 10 * time.Minute
	until := func(d time.Duration) *metav1.Time { v := metav1.NewTime(t0.Add(d)); return &v }
	cases := map[string]struct {
		status clusterv1alpha1.AddOnPlacementScoreStatus
		want   bool
	}{
		"no scores yet":              {status: clusterv1alpha1.AddOnPlacementScoreStatus{}, want: true},
		"same scores, valid long":    {status: clusterv1alpha1.AddOnPlacementScoreStatus{Scores: items(1, 2), ValidUntil: until(9 * time.Minute)}},
		"a score changed":            {status: clusterv1alpha1.AddOnPlacementScoreStatus{Scores: items(1, 3), ValidUntil: until(9 * time.Minute)}, want: true},
		"same scores, no validUntil": {status: clusterv1alpha1.AddOnPlacementScoreStatus{Scores: items(1, 2)}, want: true},
		"same scores, half validity left": {
			status: clusterv1alpha1.AddOnPlacementScoreStatus{Scores: items(1, 2), ValidUntil: until(5 * time.Minute)}, want: true,
		},
		"same scores, expired": {
			status: clusterv1alpha1.AddOnPlacementScoreStatus{Scores: items(1, 2), ValidUntil: until(-time.Minute)}, want: true,
		},
		"another score's name": {
			status: clusterv1alpha1.AddOnPlacementScoreStatus{
				Scores: []clusterv1alpha1.AddOnPlacementScoreItem{{Name: "x", Value: 1}, {Name: placementapi.ScoreMemory, Value: 2}}, ValidUntil: until(9 * time.Minute),
			}, want: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := needsWrite(tc.status, items(1, 2), t0, validFor); got != tc.want {
				t.Errorf("needsWrite = %v, want %v", got, tc.want)
			}
		})
	}
}

// verbs lists the requests the fake hub got, as "verb resource[/sub]".
func verbs(c *clusterfake.Clientset) []string {
	var out []string
	for _, a := range c.Actions() {
		v := a.GetVerb() + " " + a.GetResource().Resource
		if a.GetSubresource() != "" {
			v += "/" + a.GetSubresource()
		}
		out = append(out, v)
	}
	c.ClearActions()
	return out
}

func TestPublish(t *testing.T) {
	ctx := context.Background()
	hub := clusterfake.NewSimpleClientset() //nolint:staticcheck // the api module's fake has no NewClientset
	clock := clocktesting.NewFakeClock(t0)
	p := &publisher{client: hub.ClusterV1alpha1(), namespace: "c1", clock: clock, validFor: 10 * time.Minute}

	next, wrote, err := p.publish(ctx, items(10, 20))
	if err != nil || !wrote {
		t.Fatalf("first publish: wrote %v, err %v; want a write", wrote, err)
	}
	if diff := cmp.Diff([]string{"get addonplacementscores", "create addonplacementscores", "update addonplacementscores/status"}, verbs(hub)); diff != "" {
		t.Errorf("first publish: requests (-want +got):\n%s", diff)
	}
	if want := t0.Add(5 * time.Minute); !next.Equal(want) {
		t.Errorf("next publish at %s, want %s (half the validity)", next, want)
	}
	got, err := hub.ClusterV1alpha1().AddOnPlacementScores("c1").Get(ctx, placementapi.ScoreName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(items(10, 20), got.Status.Scores); diff != "" {
		t.Errorf("scores on the hub (-want +got):\n%s", diff)
	}
	if got.Status.ValidUntil == nil || !got.Status.ValidUntil.Time.Equal(t0.Add(10*time.Minute)) {
		t.Errorf("validUntil %v, want %s", got.Status.ValidUntil, t0.Add(10*time.Minute))
	}
	verbs(hub) // forget the test's own read

	clock.Step(time.Minute)
	if _, wrote, err := p.publish(ctx, items(10, 20)); err != nil || wrote {
		t.Errorf("same scores: wrote %v, err %v; want no write", wrote, err)
	}
	if v := verbs(hub); len(v) != 0 {
		t.Errorf("same scores: requests %v, want none", v)
	}

	if _, wrote, err := p.publish(ctx, items(11, 20)); err != nil || !wrote {
		t.Errorf("changed scores: wrote %v, err %v; want a write", wrote, err)
	}
	if diff := cmp.Diff([]string{"get addonplacementscores", "update addonplacementscores/status"}, verbs(hub)); diff != "" {
		t.Errorf("changed scores: requests (-want +got):\n%s", diff)
	}

	clock.Step(5 * time.Minute) // half the validity of the last write
	if _, wrote, err := p.publish(ctx, items(11, 20)); err != nil || !wrote {
		t.Errorf("validity half gone: wrote %v, err %v; want a write", wrote, err)
	}
	got, err = hub.ClusterV1alpha1().AddOnPlacementScores("c1").Get(ctx, placementapi.ScoreName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := clock.Now().Add(10 * time.Minute); !got.Status.ValidUntil.Time.Equal(want) {
		t.Errorf("validUntil %v, want it extended to %s", got.Status.ValidUntil, want)
	}
}

func TestPublishFailureRereadsTheHub(t *testing.T) {
	ctx := context.Background()
	hub := clusterfake.NewSimpleClientset() //nolint:staticcheck // the api module's fake has no NewClientset
	fail := true
	hub.PrependReactor("update", "addonplacementscores", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if fail && a.GetSubresource() == "status" {
			return true, nil, errors.New("the hub is down")
		}
		return false, nil, nil
	})
	p := &publisher{client: hub.ClusterV1alpha1(), namespace: "c1", clock: clocktesting.NewFakeClock(t0), validFor: 10 * time.Minute}
	if _, _, err := p.publish(ctx, items(1, 2)); err == nil {
		t.Fatal("no error from a failed write")
	}
	fail = false
	verbs(hub)
	if _, wrote, err := p.publish(ctx, items(1, 2)); err != nil || !wrote {
		t.Fatalf("after the failure: wrote %v, err %v; want a write", wrote, err)
	}
	if diff := cmp.Diff([]string{"get addonplacementscores", "update addonplacementscores/status"}, verbs(hub)); diff != "" {
		t.Errorf("after the failure: requests (-want +got):\n%s", diff)
	}
}
