package clusterstatus

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/properties/api"
)

// Reflect returns status with the report's properties in it.
func Reflect(status clusterv1.ManagedClusterStatus, rep *api.Report) clusterv1.ManagedClusterStatus {
	status.Version.Kubernetes = rep.KubernetesVersion
	status.Capacity = resources(rep.Capacity)
	status.Allocatable = resources(rep.Allocatable)
	claims, _ := api.Bound(nil, rep.Claims)
	status.ClusterClaims = nil
	for _, c := range claims {
		status.ClusterClaims = append(status.ClusterClaims, clusterv1.ManagedClusterClaim{Name: c.Name, Value: c.Value})
	}
	return status
}

// resources converts a core ResourceList to the cluster API's.
func resources(l corev1.ResourceList) clusterv1.ResourceList {
	if len(l) == 0 {
		return nil
	}
	out := make(clusterv1.ResourceList, len(l))
	for name, q := range l {
		out[clusterv1.ResourceName(name)] = q
	}
	return out
}

// ReasonPropertiesRemoved is the reason of the Event recorded when a
// disabled addon's properties are removed from its cluster.
const ReasonPropertiesRemoved = "PropertiesRemoved"

// forget, once the addon is disabled on the cluster, removes the
// properties its report put in the cluster's status, then the report: the
// report left behind says the addon wrote them, so a cluster whose
// properties come from elsewhere (OCM's own registration agent) is never
// touched.
func (r *Reconciler) forget(ctx context.Context, s *scope) (steps.Result, error) {
	if s.leftover == nil {
		return steps.Continue, nil
	}
	if err := r.Live.Get(ctx, client.ObjectKeyFromObject(s.leftover), s.leftover); err != nil {
		return steps.StopList, client.IgnoreNotFound(err)
	}
	want := Reflect(s.cluster.Status, &api.Report{}) // an empty report: none of its properties
	if !equality.Semantic.DeepEqual(want, s.cluster.Status) {
		s.cluster.Status = want
		if err := r.Client.Status().Patch(ctx, s.cluster, client.MergeFromWithOptions(s.original, client.MergeFromWithOptimisticLock{})); err != nil {
			return steps.StopList, fmt.Errorf("removing cluster %s's properties: %w", s.name, err)
		}
		if r.Recorder != nil {
			r.Recorder.Eventf(s.cluster, nil, corev1.EventTypeNormal, ReasonPropertiesRemoved, "Disable",
				"The %s addon is disabled: the version, capacity, allocatable and claims it reported are removed", api.AddonName)
		}
	}
	uid := s.leftover.UID
	if err := r.Client.Delete(ctx, s.leftover, client.Preconditions{UID: &uid}); client.IgnoreNotFound(err) != nil {
		return steps.StopList, fmt.Errorf("deleting the disabled addon's report %s/%s: %w", s.name, s.leftover.Name, err)
	}
	ctrl.LoggerFrom(ctx).V(1).Info("The properties addon is disabled: removed the properties it reported and its report", "cluster", s.name)
	return steps.StopList, nil
}

// reflectStatus writes the report into the cluster's status when it says
// something new.
func (r *Reconciler) reflectStatus(ctx context.Context, s *scope) (steps.Result, error) {
	want := Reflect(s.cluster.Status, s.report)
	if equality.Semantic.DeepEqual(want, s.cluster.Status) {
		return steps.Continue, nil
	}
	ctrl.LoggerFrom(ctx).V(1).Info("Reflecting reported properties", "cluster", s.name, "version", want.Version.Kubernetes, "claims", len(want.ClusterClaims))
	s.cluster.Status = want
	if err := r.Client.Status().Patch(ctx, s.cluster, client.MergeFromWithOptions(s.original, client.MergeFromWithOptimisticLock{})); err != nil {
		return steps.StopList, fmt.Errorf("writing cluster %s's properties: %w", s.name, err)
	}
	return steps.Continue, nil
}

// reportTruncation sets ConditionClaimsWithinLimits on the addon, and
// records an Event on the cluster when it changes.
func (r *Reconciler) reportTruncation(ctx context.Context, s *scope) (steps.Result, error) {
	cond := metav1.Condition{
		Type: ConditionClaimsWithinLimits, Status: metav1.ConditionTrue, Reason: ReasonClaimsWithinLimits,
		Message: fmt.Sprintf("%d claims reported, within the limit of %d", len(s.report.Claims), api.MaxClaims),
	}
	_, dropped := api.Bound(nil, s.report.Claims)
	dropped = append(append([]string(nil), s.report.Dropped...), dropped...)
	if len(dropped) > 0 {
		cond.Status, cond.Reason = metav1.ConditionFalse, ReasonClaimsTruncated
		cond.Message = fmt.Sprintf("%d claims dropped, beyond the limits of %d claims, %d-character names and %d-character values: %s",
			len(dropped), api.MaxClaims, api.MaxClaimNameLength, api.MaxClaimValueLength, strings.Join(dropped, ", "))
	}
	cond.ObservedGeneration = s.addon.Generation
	old := meta.FindStatusCondition(s.addon.Status.Conditions, ConditionClaimsWithinLimits)
	if old != nil && old.Status == cond.Status && old.Reason == cond.Reason && old.Message == cond.Message {
		return steps.Continue, nil
	}
	wasTruncated := old != nil && old.Status == metav1.ConditionFalse
	original := s.addon.DeepCopy()
	meta.SetStatusCondition(&s.addon.Status.Conditions, cond)
	if err := r.Client.Status().Patch(ctx, s.addon, client.MergeFromWithOptions(original, client.MergeFromWithOptimisticLock{})); err != nil {
		return steps.StopList, fmt.Errorf("writing the properties addon's %s condition: %w", ConditionClaimsWithinLimits, err)
	}
	if !wasTruncated && cond.Status == metav1.ConditionFalse && r.Recorder != nil {
		r.Recorder.Eventf(s.cluster, nil, corev1.EventTypeWarning, ReasonClaimsTruncated, "ReportProperties", "%s", cond.Message)
	}
	return steps.Continue, nil
}
