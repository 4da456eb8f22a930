package host

import (
	"context"
	"fmt"
	"time"

	"github.com/corral-dev/corral/registration/common"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
)

// The Available condition's reasons, OCM's.
const (
	ReasonLeaseUpdated  = addonv1beta1.AddonAvailableReasonLeaseLeaseUpdated
	ReasonLeaseStopped  = addonv1beta1.AddonAvailableReasonLeaseUpdateStopped
	ReasonLeaseNotFound = addonv1beta1.AddonAvailableReasonLeaseLeaseNotFound
)

// ReasonStatusUpdated is the reason of the Event OCM's agent records when
// it changes an addon's Available condition.
const ReasonStatusUpdated = "ManagedClusterAddOnStatusUpdated"

// availableCondition is the addon's Available condition from its lease:
// renewed (nil when there is no lease) within grace of now, or not.
func availableCondition(addon string, renewed *time.Time, now time.Time, grace time.Duration) metav1.Condition {
	c := metav1.Condition{Type: addonv1beta1.ManagedClusterAddOnConditionAvailable}
	switch {
	case renewed == nil:
		c.Status, c.Reason, c.Message = metav1.ConditionUnknown, ReasonLeaseNotFound, fmt.Sprintf("The status of %s add-on is unknown.", addon)
	case now.Before(renewed.Add(grace)):
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, ReasonLeaseUpdated, fmt.Sprintf("%s add-on is available.", addon)
	default:
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, ReasonLeaseStopped, fmt.Sprintf("%s add-on is not available.", addon)
	}
	return c
}

// syncAvailable turns the addon's lease in its install namespace into its
// Available condition, unless the addon's health is checked otherwise. It
// says whether the addon is available by its lease: if not, its agent may
// be starting, and the lease is worth looking at again soon.
func (h *Host) syncAvailable(ctx context.Context, mca *addonv1beta1.ManagedClusterAddOn) (bool, error) {
	if mca.Status.HealthCheck.Mode == addonv1beta1.HealthCheckModeCustomized {
		return true, nil
	}
	ns := installNamespace(mca)
	var renewed *time.Time
	lease, err := h.managed.CoordinationV1().Leases(ns).Get(ctx, mca.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return false, errorf(mca.Name, "reading its lease", err)
	case lease.Spec.RenewTime != nil:
		renewed = &lease.Spec.RenewTime.Time
	default:
		renewed = &time.Time{}
	}
	grace := time.Duration(LeaseGraceTimes*h.opts.LeaseDurationSeconds) * time.Second
	cond := availableCondition(mca.Name, renewed, h.opts.Clock.Now(), grace)
	available := cond.Status == metav1.ConditionTrue
	if old := meta.FindStatusCondition(mca.Status.Conditions, cond.Type); old != nil &&
		old.Status == cond.Status && old.Reason == cond.Reason && old.Message == cond.Message {
		return available, nil
	}
	changed, err := h.setConditions(ctx, mca.Name, cond)
	if err != nil {
		return available, errorf(mca.Name, "reporting Available", err)
	}
	if changed {
		log(ctx).V(1).Info("The addon's availability changed", "addon", mca.Name, "available", cond.Status, "reason", cond.Reason)
		h.event(ctx, mca.Name, corev1.EventTypeNormal, ReasonStatusUpdated,
			fmt.Sprintf("update managed cluster addon %q available condition to %q with its lease %q/%q status",
				mca.Name, cond.Status, ns, mca.Name))
	}
	return available, nil
}

// setConditions writes conds into the addon's status, if they change it.
func (h *Host) setConditions(ctx context.Context, name string, conds ...metav1.Condition) (bool, error) {
	return h.updateStatus(ctx, name, func(mca *addonv1beta1.ManagedClusterAddOn) bool {
		changed := false
		for _, c := range conds {
			c.ObservedGeneration = mca.Generation
			changed = meta.SetStatusCondition(&mca.Status.Conditions, c) || changed
		}
		return changed
	})
}

// updateStatus applies change to the addon's status as the hub has it now
// and writes it, if change says it changed anything; it reads again and
// retries on a conflict. An addon that is gone is left alone, and one the
// hub did not convert is not written (errUnconverted).
func (h *Host) updateStatus(ctx context.Context, name string, change func(*addonv1beta1.ManagedClusterAddOn) bool) (bool, error) {
	client := h.hubAddon.AddonV1beta1().ManagedClusterAddOns(h.opts.ClusterName)
	changed := false
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		mca, err := client.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if unconverted(mca) {
			changed = false
			return errUnconverted
		}
		if changed = change(mca); !changed {
			return nil
		}
		_, err = client.UpdateStatus(ctx, mca, metav1.UpdateOptions{})
		return err
	})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return changed, err
}

// reportCertificate sets ClusterCertificateRotated on the addon, as OCM's
// agent does; a failure to do so is only logged.
func (h *Host) reportCertificate(ctx context.Context, w want, status metav1.ConditionStatus, reason, message string) {
	if ctx.Err() != nil {
		return
	}
	cond := metav1.Condition{Type: common.ConditionCertificateRotated, Status: status, Reason: reason, Message: message}
	if _, err := h.setConditions(ctx, w.addon, cond); err != nil {
		log(ctx).Info("Reporting the addon's certificate failed", "err", err)
	}
}

// event records an Event about the addon in the cluster namespace on the
// hub; a failure to do so is only logged.
func (h *Host) event(ctx context.Context, addon, eventType, reason, message string) {
	now := metav1.NewTime(h.opts.Clock.Now())
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{GenerateName: addon + ".", Namespace: h.opts.ClusterName},
		InvolvedObject: corev1.ObjectReference{
			APIVersion: addonv1beta1.GroupVersion.String(), Kind: "ManagedClusterAddOn",
			Namespace: h.opts.ClusterName, Name: addon,
		},
		Type: eventType, Reason: reason, Message: message,
		Source:         corev1.EventSource{Component: "addon-host", Host: h.opts.ClusterName},
		FirstTimestamp: now, LastTimestamp: now, Count: 1,
	}
	if _, err := h.hubKube.CoreV1().Events(h.opts.ClusterName).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		log(ctx).V(1).Info("Recording an event failed", "addon", addon, "reason", reason, "err", err)
	}
}

// hostReporter reports a built-in agent's crashes on its addon.
type hostReporter struct{ h *Host }

func (r hostReporter) crashed(ctx context.Context, addon string, err error, crashes int, restartIn time.Duration) {
	log(ctx).Error(err, "The addon agent crashed; restarting it", "crashes", crashes, "in", restartIn)
	msg := fmt.Sprintf("The %s agent crashed (%d times since it last ran for %s): %v; restarting it in %s",
		addon, crashes, r.h.opts.StableAfter, err, restartIn.Round(time.Millisecond))
	cond := metav1.Condition{Type: ConditionDegraded, Status: metav1.ConditionTrue, Reason: ReasonAgentCrashed, Message: msg}
	if _, err := r.h.setConditions(ctx, addon, cond); err != nil {
		log(ctx).Info("Reporting the crash on the addon failed", "err", err)
	}
	r.h.event(ctx, addon, corev1.EventTypeWarning, ReasonAgentCrashed, msg)
}

func (r hostReporter) recovered(ctx context.Context, addon string) {
	log(ctx).Info("The addon agent is running again")
	cond := metav1.Condition{Type: ConditionDegraded, Status: metav1.ConditionFalse, Reason: ReasonAgentRunning,
		Message: fmt.Sprintf("The %s agent has run for %s since it last crashed", addon, r.h.opts.StableAfter)}
	if _, err := r.h.setConditions(ctx, addon, cond); err != nil {
		log(ctx).Info("Reporting the recovery on the addon failed", "err", err)
	}
}
