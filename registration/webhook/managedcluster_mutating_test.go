package webhook

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
)

var (
	now     = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	earlier = metav1.NewTime(now.Add(-time.Hour))
	nowText = now.Format(time.RFC3339)
)

// cluster is a ManagedCluster named c1 with labels (key, value pairs).
func cluster(labels ...string) *clusterv1.ManagedCluster {
	c := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "c1"}}
	for i := 0; i+1 < len(labels); i += 2 {
		if c.Labels == nil {
			c.Labels = map[string]string{}
		}
		c.Labels[labels[i]] = labels[i+1]
	}
	return c
}

func inSet(set string) *clusterv1.ManagedCluster { return cluster(clusterv1beta2.ClusterSetLabel, set) }

func withTaints(c *clusterv1.ManagedCluster, taints ...clusterv1.Taint) *clusterv1.ManagedCluster {
	c.Spec.Taints = taints
	return c
}

func taint(key, value string, effect clusterv1.TaintEffect, added metav1.Time) clusterv1.Taint {
	return clusterv1.Taint{Key: key, Value: value, Effect: effect, TimeAdded: added}
}

func TestClusterDefaulter(t *testing.T) {
	setLabelPath := "/metadata/labels/cluster.open-cluster-management.io~1clusterset"
	cases := map[string]struct {
		op       admissionv1.Operation
		obj, old *clusterv1.ManagedCluster
		want     []jsonpatch.JsonPatchOperation
	}{
		"a new cluster without labels gets the default set": {
			op: admissionv1.Create, obj: cluster(),
			want: []jsonpatch.JsonPatchOperation{{Operation: "add", Path: "/metadata/labels",
				Value: map[string]string{clusterv1beta2.ClusterSetLabel: "default"}}},
		},
		"a new cluster with other labels gets the default set beside them": {
			op: admissionv1.Create, obj: cluster("env", "prod"),
			want: []jsonpatch.JsonPatchOperation{{Operation: "add", Path: setLabelPath, Value: "default"}},
		},
		"an empty set label becomes the default set": {
			op: admissionv1.Create, obj: inSet(""),
			want: []jsonpatch.JsonPatchOperation{{Operation: "add", Path: setLabelPath, Value: "default"}},
		},
		"a cluster in a set stays there": {
			op: admissionv1.Create, obj: inSet("set-a"),
		},
		"an update that drops the set label puts the cluster back in the default set": {
			op: admissionv1.Update, obj: cluster("env", "prod"), old: inSet("set-a"),
			want: []jsonpatch.JsonPatchOperation{{Operation: "add", Path: setLabelPath, Value: "default"}},
		},
		"every taint of a new cluster gets the hub's time, whatever it says": {
			op: admissionv1.Create,
			obj: withTaints(inSet("s"),
				taint("a", "", clusterv1.TaintEffectNoSelect, metav1.Time{}),
				taint("b", "", clusterv1.TaintEffectNoSelect, earlier)),
			want: []jsonpatch.JsonPatchOperation{
				{Operation: "add", Path: "/spec/taints/0/timeAdded", Value: nowText},
				{Operation: "add", Path: "/spec/taints/1/timeAdded", Value: nowText},
			},
		},
		"a taint that stays keeps its time, even when the update leaves it out": {
			op:  admissionv1.Update,
			obj: withTaints(inSet("s"), taint("a", "v", clusterv1.TaintEffectNoSelect, metav1.Time{})),
			old: withTaints(inSet("s"), taint("a", "v", clusterv1.TaintEffectNoSelect, earlier)),
			want: []jsonpatch.JsonPatchOperation{
				{Operation: "add", Path: "/spec/taints/0/timeAdded", Value: earlier.UTC().Format(time.RFC3339)},
			},
		},
		"a taint that stays with its time needs no patch": {
			op:  admissionv1.Update,
			obj: withTaints(inSet("s"), taint("a", "v", clusterv1.TaintEffectNoSelect, earlier)),
			old: withTaints(inSet("s"), taint("a", "v", clusterv1.TaintEffectNoSelect, earlier)),
		},
		"a taint added by an update gets the hub's time, not the client's": {
			op: admissionv1.Update,
			obj: withTaints(inSet("s"),
				taint("a", "v", clusterv1.TaintEffectNoSelect, earlier),
				taint("b", "", clusterv1.TaintEffectNoSelect, metav1.NewTime(now.Add(-time.Minute)))),
			old:  withTaints(inSet("s"), taint("a", "v", clusterv1.TaintEffectNoSelect, earlier)),
			want: []jsonpatch.JsonPatchOperation{{Operation: "add", Path: "/spec/taints/1/timeAdded", Value: nowText}},
		},
		"a taint whose value changed is new": {
			op:   admissionv1.Update,
			obj:  withTaints(inSet("s"), taint("a", "w", clusterv1.TaintEffectNoSelect, earlier)),
			old:  withTaints(inSet("s"), taint("a", "v", clusterv1.TaintEffectNoSelect, earlier)),
			want: []jsonpatch.JsonPatchOperation{{Operation: "add", Path: "/spec/taints/0/timeAdded", Value: nowText}},
		},
		"a taint whose effect changed is new": {
			op:   admissionv1.Update,
			obj:  withTaints(inSet("s"), taint("a", "v", clusterv1.TaintEffectPreferNoSelect, earlier)),
			old:  withTaints(inSet("s"), taint("a", "v", clusterv1.TaintEffectNoSelect, earlier)),
			want: []jsonpatch.JsonPatchOperation{{Operation: "add", Path: "/spec/taints/0/timeAdded", Value: nowText}},
		},
		"a stored taint without a time gets the hub's": {
			op:   admissionv1.Update,
			obj:  withTaints(inSet("s"), taint("a", "v", clusterv1.TaintEffectNoSelect, metav1.Time{})),
			old:  withTaints(inSet("s"), taint("a", "v", clusterv1.TaintEffectNoSelect, metav1.Time{})),
			want: []jsonpatch.JsonPatchOperation{{Operation: "add", Path: "/spec/taints/0/timeAdded", Value: nowText}},
		},
		"a delete is let through untouched": {
			op: admissionv1.Delete, old: cluster(),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d := &clusterDefaulter{clock: clocktesting.NewFakePassiveClock(now)}
			resp := d.Handle(context.Background(), request(t, tc.op, tc.obj, tc.old))
			checkOutcome(t, resp, allowedOutcome())
			if diff := cmp.Diff(tc.want, resp.Patches); diff != "" {
				t.Errorf("patches (-want +got):\n%s", diff)
			}
		})
	}
}

func TestClusterDefaulterRefusesWhatItCannotRead(t *testing.T) {
	d := &clusterDefaulter{clock: clocktesting.NewFakePassiveClock(now)}
	req := request(t, admissionv1.Create, nil, nil)
	req.Object.Raw = []byte(`{"metadata": 7}`)
	checkOutcome(t, d.Handle(context.Background(), req), refused(400, "decoding the ManagedCluster"))
}
