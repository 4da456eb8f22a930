package agent

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"
	clusterfake "open-cluster-management.io/api/client/cluster/clientset/versioned/fake"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/internal/testing/builder"
)

func TestRotationDue(t *testing.T) {
	issued := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cert := &certificate{NotBefore: issued, NotAfter: issued.Add(100 * time.Hour)}
	for name, tc := range map[string]struct {
		at   time.Duration
		want bool
	}{
		"just issued":        {at: 0},
		"at 79%":             {at: 79 * time.Hour},
		"at 80%":             {at: 80 * time.Hour, want: true},
		"expired":            {at: 101 * time.Hour, want: true},
		"clock before issue": {at: -time.Hour},
	} {
		t.Run(name, func(t *testing.T) {
			a := &Agent{opts: Options{Clock: clocktesting.NewFakeClock(issued.Add(tc.at))}}
			if got := a.rotationDue(cert); got != tc.want {
				t.Errorf("rotationDue at %v = %t, want %t", tc.at, got, tc.want)
			}
		})
	}
}

func TestFreshnessGracesOnlyANewIdentitysFirstPeriod(t *testing.T) {
	start := time.Now()
	period := 4 * time.Second
	f := newFreshness(start, period)
	if !f.graced(start.Add(time.Second)) {
		t.Error("a rejection within the first period of a new identity is not graced")
	}
	if f.graced(start.Add(period)) {
		t.Error("a rejection a whole period after joining is graced")
	}
	var waits []time.Duration
	for range 5 {
		waits = append(waits, f.retry())
	}
	if want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second}; !slices.Equal(waits, want) {
		t.Errorf("retries %v, want %v (doubling, at most a period)", waits, want)
	}
	f.beaten()
	if f.graced(start.Add(time.Second)) {
		t.Error("a rejection after a successful heartbeat is graced")
	}
}

func TestSetConditionsRetriesAConflictWithTheHubsWrite(t *testing.T) {
	ctx := context.Background()
	stale := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "c1", ResourceVersion: "1"}}
	hubs := stale.DeepCopy()
	hubs.ResourceVersion = "2"
	hubs.Status.Conditions = []metav1.Condition{{Type: clusterv1.ManagedClusterConditionClockSynced, Status: metav1.ConditionTrue, Reason: "ByTheHub"}}
	clusters := clusterfake.NewSimpleClientset(hubs) //nolint:staticcheck // the OCM api generates no apply configurations, so no NewClientset
	conflicts := 0
	clusters.PrependReactor("update", "managedclusters", func(action clienttesting.Action) (bool, runtime.Object, error) {
		mc := action.(clienttesting.UpdateAction).GetObject().(*clusterv1.ManagedCluster)
		if mc.ResourceVersion != "2" {
			conflicts++
			return true, nil, apierrors.NewConflict(clusterv1.Resource("managedclusters"), mc.Name, errors.New("modified"))
		}
		return false, nil, nil
	})
	joined := metav1.Condition{Type: clusterv1.ManagedClusterConditionJoined, Status: metav1.ConditionTrue, Reason: ReasonJoined}
	if err := setConditions(ctx, clusters, stale, joined); err != nil {
		t.Fatalf("setConditions() = %v, want the write retried on the hub's version", err)
	}
	if conflicts != 1 {
		t.Errorf("%d conflicts, want the one of the stale read", conflicts)
	}
	got, err := clusters.ClusterV1().ManagedClusters().Get(ctx, "c1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{clusterv1.ManagedClusterConditionJoined, clusterv1.ManagedClusterConditionClockSynced} {
		if !meta.IsStatusConditionTrue(got.Status.Conditions, typ) {
			t.Errorf("%s is not True in %v: the agent's and the hub's conditions should both stay", typ, got.Status.Conditions)
		}
	}
}

func TestNoteClockSaysOnceEachTimeTheHubsVerdictChanges(t *testing.T) {
	var lines []string
	ctx := logr.NewContext(context.Background(), funcr.New(func(_, args string) { lines = append(lines, args) }, funcr.Options{}))
	a := &Agent{}
	synced := metav1.Condition{Type: clusterv1.ManagedClusterConditionClockSynced, Status: metav1.ConditionTrue}
	skewed := metav1.Condition{Type: clusterv1.ManagedClusterConditionClockSynced, Status: metav1.ConditionFalse, Message: "renewTime is 1h ahead"}
	steps := []struct {
		name string
		mc   *clusterv1.ManagedCluster
		want string // a part of the one line logged; "" for none
	}{
		{"no verdict yet", builder.Cluster("c1").Obj(), ""},
		{"in sync", builder.Cluster("c1").Condition(synced).Obj(), ""},
		{"out of sync", builder.Cluster("c1").Condition(skewed).Obj(), "out of sync"},
		{"still out of sync", builder.Cluster("c1").Condition(skewed).Obj(), ""},
		{"in sync again", builder.Cluster("c1").Condition(synced).Obj(), "in sync again"},
		{"still in sync", builder.Cluster("c1").Condition(synced).Obj(), ""},
	}
	for _, step := range steps {
		lines = nil
		a.noteClock(ctx, step.mc)
		switch {
		case step.want == "" && len(lines) > 0:
			t.Errorf("%s: logged %q, want nothing", step.name, lines)
		case step.want != "" && (len(lines) != 1 || !strings.Contains(lines[0], step.want)):
			t.Errorf("%s: logged %q, want one line saying %q", step.name, lines, step.want)
		}
	}
}
