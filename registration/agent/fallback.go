package agent

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RejectedBeats is how many heartbeats in a row the hub must reject the
// agent's identity before the agent falls back to bootstrap. One is not
// enough: right after a join the hub may still be granting the identity
// its permissions.
const RejectedBeats = 3

// ReasonHubKubeconfigRejected is the reason of the Event the agent records
// on the managed cluster when it falls back to bootstrap.
const ReasonHubKubeconfigRejected = "HubKubeconfigRejected"

// rejectedByHub reports whether err is the hub refusing who the agent is
// or what it may do, rather than the hub being out of reach.
func rejectedByHub(err error) bool {
	return apierrors.IsUnauthorized(err) || apierrors.IsForbidden(err)
}

// fallBack says, in the log and in an Event on the managed cluster, that
// the hub no longer accepts the current identity, and asks to join again
// with the bootstrap kubeconfig under the same agent id.
func (a *Agent) fallBack(ctx context.Context, s *session, cause error) (*session, error) {
	msg := fmt.Sprintf("The hub rejected the hub kubeconfig of cluster %s %d times in a row (%v); asking to join again with the bootstrap kubeconfig",
		s.id.Cluster, RejectedBeats, cause)
	log(ctx).Info(msg)
	a.recordEvent(ctx, corev1.EventTypeWarning, ReasonHubKubeconfigRejected, msg)
	return a.join(ctx, s.id, true)
}

// recordEvent records an Event about the hub kubeconfig Secret on the
// managed cluster. Events are best effort: a failure is only logged.
func (a *Agent) recordEvent(ctx context.Context, eventType, reason, msg string) {
	now := metav1.NewTime(a.opts.Clock.Now())
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{GenerateName: a.opts.SecretName + ".", Namespace: a.opts.SecretNamespace},
		InvolvedObject: corev1.ObjectReference{
			APIVersion: "v1", Kind: "Secret", Namespace: a.opts.SecretNamespace, Name: a.opts.SecretName,
		},
		Type: eventType, Reason: reason, Message: msg,
		Source:         corev1.EventSource{Component: "corral-agent"},
		FirstTimestamp: now, LastTimestamp: now, Count: 1,
	}
	if _, err := a.managed.CoreV1().Events(a.opts.SecretNamespace).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		log(ctx).V(1).Info("Recording an event on the managed cluster failed", "reason", reason, "err", err)
	}
}
