// Package bootstrap owns the hub's bootstrap identity: the service account
// whose token a new cluster's agent uses to ask to join, and what it may do
// — create CSRs and ManagedClusters, and nothing that accepts a cluster.
// Names and rules are OCM's, as `clusteradm init` makes them, so that
// clusteradm and OCM agents find them and `clusteradm accept` approves the
// joins; the hub chart (deploy/charts/corral-hub) installs them.
package bootstrap

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Names of the bootstrap identity, as OCM has them.
const (
	Namespace      = "open-cluster-management"
	ServiceAccount = "agent-registration-bootstrap"
	ClusterRole    = "system:open-cluster-management:bootstrap"
	// TokenGroup is the group of the bootstrap-token users
	// (system:bootstrap:<token id>) that may ask to join, as with
	// `clusteradm init --use-bootstrap-token`.
	TokenGroup = "system:bootstrappers:managedcluster"
	// LegacyServiceAccount is the bootstrap service account of corral
	// hubs before they took OCM's name; the joins it asked for are still
	// accepted.
	LegacyServiceAccount = "cluster-bootstrap"
	fieldManager         = "corral-init"
)

// User is the user name the bootstrap token authenticates as.
var User = serviceAccountUser(ServiceAccount)

// Requesters are the users whose join requests `corral accept` approves by
// default: the bootstrap service account's, and the one of older corral
// hubs.
func Requesters() []string { return []string{User, serviceAccountUser(LegacyServiceAccount)} }

func serviceAccountUser(name string) string {
	return fmt.Sprintf("system:serviceaccount:%s:%s", Namespace, name)
}

// IsJoinRequester says whether a CSR asked for by username in groups comes
// from a bootstrap identity: one of requesters, or, as clusteradm accepts
// them, a bootstrap-token user in TokenGroup.
func IsJoinRequester(username string, groups, requesters []string) bool {
	if slices.Contains(requesters, username) {
		return true
	}
	return strings.HasPrefix(username, "system:bootstrap:") && slices.Contains(groups, TokenGroup)
}

// Token issues a bootstrap token valid for ttlSeconds.
func Token(ctx context.Context, client kubernetes.Interface, ttlSeconds int64) (string, error) {
	token, _, err := TokenUntil(ctx, client, ttlSeconds)
	return token, err
}

// TokenUntil issues a bootstrap token asked to be valid for ttlSeconds,
// and says until when the API server made it valid (it may cap the
// lifetime).
func TokenUntil(ctx context.Context, client kubernetes.Interface, ttlSeconds int64) (string, time.Time, error) {
	tr, err := client.CoreV1().ServiceAccounts(Namespace).CreateToken(ctx, ServiceAccount, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &ttlSeconds},
	}, metav1.CreateOptions{})
	if err != nil {
		return "", time.Time{}, fmt.Errorf("issuing a bootstrap token (has 'corral init' run on this hub?): %w", err)
	}
	return tr.Status.Token, tr.Status.ExpirationTimestamp.Time, nil
}
