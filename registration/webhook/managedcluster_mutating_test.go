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

	"github.com/corral-dev/corral/internal/testing/builder"
)

var (
	now     = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	earlier = metav1.NewTime(now.Add(-time.Hour))
	nowText = now.Format(time.RFC3339)
)

func TestClusterDefaulter(t *testing.T) {
	setLabelPath := "/metadata/labels/cluster.open-cluster-management.io~1clusterset"
	cases := map[string]struct {
		op       admissionv1.Operation
		obj, old *clusterv1.ManagedCluster
		want     []jsonpatch.JsonPatchOperation
	}{
		"a new cluster without labels gets the default set": {
			op: admissionv1.Create, obj: builder.Cluster("c1").Obj(),
			want: []jsonpatch.JsonPatchOperation{{Operation: "add", Path: "/metadata/labels",
				Value: map[string]string{clusterv1beta2.ClusterSetLabel: "default"}}},
		},
		"a new cluster with other labels gets the default set beside them": {
			op: admissionv1.Create, obj: builder.Cluster("c1").Label("env", "prod").Obj(),
			want: []jsonpatch.JsonPatchOperation{{Operation: "add", Path: setLabelPath, Value: "default"}},
		},
		"an empty set label becomes the default set": {
			op: admissionv1.Create, obj: builder.Cluster("c1").InSet("").Obj(),
			want: []jsonpatch.JsonPatchOperation{{Operation: "add", Path: setLabelPath, Value: "default"}},
		},
		"a cluster in a set stays there": {
			op: admissionv1.Create, obj: builder.Cluster("c1").InSet("set-a").Obj(),
		},
		"an update that drops the set label puts the cluster back in the default set": {
			op: admissionv1.Update, obj: builder.Cluster("c1").Label("env", "prod").Obj(), old: builder.Cluster("c1").InSet("set-a").Obj(),
			want: []jsonpatch.JsonPatchOperation{{Operation: "add", Path: setLabelPath, Value: "default"}},
		},
		"every taint of a new cluster gets the hub's time, whatever it says": {
			op: admissionv1.Create,
			obj: builder.Cluster("c1").InSet("s").
				Taint("a", "", clusterv1.TaintEffectNoSelect, time.Time{}).
				Taint("b", "", clusterv1.TaintEffectNoSelect, earlier.Time).Obj(),
			want: []jsonpatch.JsonPatchOperation{
				{Operation: "add", Path: "/spec/taints/0/timeAdded", Value: nowText},
				{Operation: "add", Path: "/spec/taints/1/timeAdded", Value: nowText},
			},
		},
		"a taint that stays keeps its time, even when the update leaves it out": {
			op:  admissionv1.Update,
			obj: builder.Cluster("c1").InSet("s").Taint("a", "v", clusterv1.TaintEffectNoSelect, time.Time{}).Obj(),
			old: builder.Cluster("c1").InSet("s").Taint("a", "v", clusterv1.TaintEffectNoSelect, earlier.Time).Obj(),
			want: []jsonpatch.JsonPatchOperation{
				{Operation: "add", Path: "/spec/taints/0/timeAdded", Value: earlier.UTC().Format(time.RFC3339)},
			},
		},
		"a taint that stays with its time needs no patch": {
			op:  admissionv1.Update,
			obj: builder.Cluster("c1").InSet("s").Taint("a", "v", clusterv1.TaintEffectNoSelect, earlier.Time).Obj(),
			old: builder.Cluster("c1").InSet("s").Taint("a", "v", clusterv1.TaintEffectNoSelect, earlier.Time).Obj(),
		},
		"a taint added by an update gets the hub's time, not the client's": {
			op: admissionv1.Update,
			obj: builder.Cluster("c1").InSet("s").
				Taint("a", "v", clusterv1.TaintEffectNoSelect, earlier.Time).
				Taint("b", "", clusterv1.TaintEffectNoSelect, now.Add(-time.Minute)).Obj(),
			old:  builder.Cluster("c1").InSet("s").Taint("a", "v", clusterv1.TaintEffectNoSelect, earlier.Time).Obj(),
			want: []jsonpatch.JsonPatchOperation{{Operation: "add", Path: "/spec/taints/1/timeAdded", Value: nowText}},
		},
		"a taint whose value changed is new": {
			op:   admissionv1.Update,
			obj:  builder.Cluster("c1").InSet("s").Taint("a", "w", clusterv1.TaintEffectNoSelect, earlier.Time).Obj(),
			old:  builder.Cluster("c1").InSet("s").Taint("a", "v", clusterv1.TaintEffectNoSelect, earlier.Time).Obj(),
			want: []jsonpatch.JsonPatchOperation{{Operation: "add", Path: "/spec/taints/0/timeAdded", Value: nowText}},
		},
		"a taint whose effect changed is new": {
			op:   admissionv1.Update,
			obj:  builder.Cluster("c1").InSet("s").Taint("a", "v", clusterv1.TaintEffectPreferNoSelect, earlier.Time).Obj(),
			old:  builder.Cluster("c1").InSet("s").Taint("a", "v", clusterv1.TaintEffectNoSelect, earlier.Time).Obj(),
			want: []jsonpatch.JsonPatchOperation{{Operation: "add", Path: "/spec/taints/0/timeAdded", Value: nowText}},
		},
		"a stored taint without a time gets the hub's": {
			op:   admissionv1.Update,
			obj:  builder.Cluster("c1").InSet("s").Taint("a", "v", clusterv1.TaintEffectNoSelect, time.Time{}).Obj(),
			old:  builder.Cluster("c1").InSet("s").Taint("a", "v", clusterv1.TaintEffectNoSelect, time.Time{}).Obj(),
			want: []jsonpatch.JsonPatchOperation{{Operation: "add", Path: "/spec/taints/0/timeAdded", Value: nowText}},
		},
		"a delete is let through untouched": {
			op: admissionv1.Delete, old: builder.Cluster("c1").Obj(),
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
