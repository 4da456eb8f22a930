package webhook

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/corral-dev/corral/internal/admissionreview"
	"github.com/corral-dev/corral/registration/hub/clusterset"
)

// clusterDefaulter is the mutating webhook of ManagedClusters: the default
// cluster set label and the hub's timeAdded on taints. It answers with a
// patch of only what it changes.
type clusterDefaulter struct {
	clock clock.PassiveClock
}

var _ admission.Handler = &clusterDefaulter{}

// Handle defaults a ManagedCluster being created or updated.
func (d *clusterDefaulter) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return admission.Allowed("")
	}
	cluster, old, resp := decodeClusters(req)
	if cluster == nil {
		return resp
	}
	var patches []jsonpatch.JsonPatchOperation
	if p := defaultClusterSetLabel(cluster); p != nil {
		patches = append(patches, *p)
	}
	var oldTaints []clusterv1.Taint
	if old != nil {
		oldTaints = old.Spec.Taints
	}
	patches = append(patches, stampTaints(cluster.Spec.Taints, oldTaints, req.Operation == admissionv1.Create, d.clock.Now())...)
	if len(patches) > 0 {
		ctrl.LoggerFrom(ctx).V(4).Info("Defaulting ManagedCluster", "cluster", cluster.Name, "patches", patches)
	}
	return admission.Patched("", patches...)
}

// defaultClusterSetLabel returns the patch that puts cluster in the default
// set, or nil when it has a set.
func defaultClusterSetLabel(cluster *clusterv1.ManagedCluster) *jsonpatch.JsonPatchOperation {
	if cluster.Labels[clusterv1beta2.ClusterSetLabel] != "" {
		return nil
	}
	if cluster.Labels == nil {
		return &jsonpatch.JsonPatchOperation{Operation: "add", Path: "/metadata/labels",
			Value: map[string]string{clusterv1beta2.ClusterSetLabel: clusterset.DefaultSetName}}
	}
	return &jsonpatch.JsonPatchOperation{Operation: "add", Path: "/metadata/labels/" + escapePointer(clusterv1beta2.ClusterSetLabel),
		Value: clusterset.DefaultSetName}
}

// stampTaints returns the patches that give each taint the timeAdded the hub
// owns: now for a taint that is new (every taint of a created cluster, or
// one whose key, value or effect was not there before); the stored time for
// one that stays (now if it had none).
func stampTaints(taints, oldTaints []clusterv1.Taint, create bool, now time.Time) []jsonpatch.JsonPatchOperation {
	var patches []jsonpatch.JsonPatchOperation
	for i, t := range taints {
		want := metav1.NewTime(now)
		if prev := findTaint(oldTaints, t.Key, t.Effect); !create && prev != nil && prev.Value == t.Value && !prev.TimeAdded.IsZero() {
			want = prev.TimeAdded
		}
		if t.TimeAdded.Equal(&want) {
			continue
		}
		patches = append(patches, jsonpatch.JsonPatchOperation{Operation: "add",
			Path: fmt.Sprintf("/spec/taints/%d/timeAdded", i), Value: want.UTC().Format(time.RFC3339)})
	}
	return patches
}

// findTaint returns the taint of key and effect, or nil.
func findTaint(taints []clusterv1.Taint, key string, effect clusterv1.TaintEffect) *clusterv1.Taint {
	for i := range taints {
		if taints[i].Key == key && taints[i].Effect == effect {
			return &taints[i]
		}
	}
	return nil
}

// escapePointer escapes a map key for a JSON pointer (RFC 6901).
func escapePointer(key string) string {
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}

// decodeClusters returns the ManagedCluster of req and, on update, the one
// it replaces; on a request it cannot decode, nil and the response that
// refuses it.
func decodeClusters(req admission.Request) (cluster, old *clusterv1.ManagedCluster, resp admission.Response) {
	cluster = &clusterv1.ManagedCluster{}
	if err := admissionreview.Decode(req.Object.Raw, cluster); err != nil {
		return nil, nil, admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding the ManagedCluster: %w", err))
	}
	if req.Operation != admissionv1.Update {
		return cluster, nil, resp
	}
	old = &clusterv1.ManagedCluster{}
	if err := admissionreview.Decode(req.OldObject.Raw, old); err != nil {
		return nil, nil, admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding the stored ManagedCluster: %w", err))
	}
	return cluster, old, resp
}
