package csrapproval

import (
	"context"
	"fmt"
	"slices"

	authorizationv1 "k8s.io/api/authorization/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/corral-dev/corral/registration/clientcsr"
	"github.com/corral-dev/corral/registration/common"

	"github.com/corral-dev/corral/internal/steps"
)

// ReasonAutoApproved is the approval reason OCM's agents recognise.
const ReasonAutoApproved = "AutoApprovedByHubCSRApprovingController"

// ReasonNotApproved is the reason of the event that says why a CSR is left
// pending.
const ReasonNotApproved = "NotApproved"

// Reconciler approves renewals (and listed users' joins) of accepted clusters.
type Reconciler struct {
	Client   client.Client
	Kube     kubernetes.Interface // approvals and access reviews
	Recorder events.EventRecorder
	// AutoApproveUsers may have their join requests approved without
	// `corral accept`, for clusters already accepted. Empty by default.
	AutoApproveUsers []string
}

// SetupWithManager registers the controller for agent CSRs, with workers
// reconciles at once. A cluster that becomes accepted requeues its CSRs: a
// join request made before that may now be approved.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, workers int) error {
	agentCSR := predicate.NewPredicateFuncs(func(obj client.Object) bool {
		csr, ok := obj.(*certificatesv1.CertificateSigningRequest)
		return ok && isAgentCSR(csr)
	})
	return ctrl.NewControllerManagedBy(mgr).
		Named("csr-approval").
		For(&certificatesv1.CertificateSigningRequest{}, builder.WithPredicates(agentCSR)).
		Watches(&clusterv1.ManagedCluster{}, handler.EnqueueRequestsFromMapFunc(r.csrsOfCluster), builder.WithPredicates(becameAccepted)).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		Complete(r)
}

// isAgentCSR says whether csr is a cluster agent's own client certificate
// request: an addon's (labelled with the addon's name too) is the addon
// manager's to decide, and left alone here without a word.
func isAgentCSR(csr *certificatesv1.CertificateSigningRequest) bool {
	return csr.Spec.SignerName == certificatesv1.KubeAPIServerClientSignerName &&
		csr.Labels[clusterv1.ClusterNameLabelKey] != "" && csr.Labels[addonv1alpha1.AddonLabelKey] == ""
}

// becameAccepted passes only an update that turns spec.hubAcceptsClient on.
var becameAccepted = predicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return false },
	DeleteFunc:  func(event.DeleteEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
	UpdateFunc: func(e event.UpdateEvent) bool {
		old, okOld := e.ObjectOld.(*clusterv1.ManagedCluster)
		cur, okNew := e.ObjectNew.(*clusterv1.ManagedCluster)
		return okOld && okNew && !old.Spec.HubAcceptsClient && cur.Spec.HubAcceptsClient
	},
}

// csrsOfCluster maps a cluster to the CSRs labelled with its name.
func (r *Reconciler) csrsOfCluster(ctx context.Context, obj client.Object) []reconcile.Request {
	csrs := &certificatesv1.CertificateSigningRequestList{}
	if err := r.Client.List(ctx, csrs, client.MatchingLabels{clusterv1.ClusterNameLabelKey: obj.GetName()}, client.UnsafeDisableDeepCopy); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing the CSRs of a cluster that became accepted", "cluster", obj.GetName())
		return nil
	}
	reqs := make([]reconcile.Request, 0, len(csrs.Items))
	for i := range csrs.Items {
		if !isAgentCSR(&csrs.Items[i]) {
			continue
		}
		reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Name: csrs.Items[i].Name}})
	}
	return reqs
}

// Reconcile approves the CSR or says why it waits.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	csr := &certificatesv1.CertificateSigningRequest{}
	if err := r.Client.Get(ctx, req.NamespacedName, csr); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !isAgentCSR(csr) || !clientcsr.Pending(csr) {
		return ctrl.Result{}, nil
	}
	approve, why, err := r.decide(ctx, csr)
	if err != nil {
		return ctrl.Result{}, err
	}
	if !approve {
		ctrl.LoggerFrom(ctx).V(1).Info("Not approving", "csr", csr.Name, "why", why)
		r.event(csr, corev1.EventTypeNormal, ReasonNotApproved, why)
		return ctrl.Result{}, nil
	}
	clientcsr.Approve(csr, ReasonAutoApproved, why)
	if _, err := r.Kube.CertificatesV1().CertificateSigningRequests().UpdateApproval(ctx, csr.Name, csr, metav1.UpdateOptions{}); err != nil {
		return steps.AfterWrite(ctx, fmt.Errorf("approving %s: %w", csr.Name, err))
	}
	ctrl.LoggerFrom(ctx).V(1).Info("Approved", "csr", csr.Name, "why", why)
	return ctrl.Result{}, nil
}

// decide says whether csr may be approved here, and why (not).
func (r *Reconciler) decide(ctx context.Context, csr *certificatesv1.CertificateSigningRequest) (bool, string, error) {
	request, err := clientcsr.Validate(csr)
	if err != nil {
		// An invalid request is a decision (leave it pending), not a failure.
		return false, "not a cluster agent's client certificate request: " + err.Error(), nil //nolint:nilerr
	}
	cluster := &clusterv1.ManagedCluster{}
	err = r.Client.Get(ctx, types.NamespacedName{Name: request.Cluster}, cluster)
	if apierrors.IsNotFound(err) {
		return false, fmt.Sprintf("cluster %s does not exist", request.Cluster), nil
	}
	if err != nil {
		return false, "", err
	}
	if !cluster.Spec.HubAcceptsClient {
		return false, fmt.Sprintf("cluster %s is not accepted: a hub admin accepts it with 'corral accept %s'", request.Cluster, request.Cluster), nil
	}
	switch {
	case csr.Spec.Username == request.CommonName:
		allowed, err := r.mayRenew(ctx, csr)
		if err != nil {
			return false, "", err
		}
		if !allowed {
			return false, fmt.Sprintf("%s may not renew the client certificates of %s", csr.Spec.Username, request.Cluster), nil
		}
		return true, fmt.Sprintf("renewal of %s by its current identity", request.CommonName), nil
	case slices.Contains(r.AutoApproveUsers, csr.Spec.Username) && common.Held(cluster):
		return false, fmt.Sprintf("%s is joined and its agent is heartbeating, so a join request for %s is not approved "+
			"(deny it with 'kubectl certificate deny %s', or unjoin the cluster first)", request.Cluster, request.CommonName, csr.Name), nil
	case slices.Contains(r.AutoApproveUsers, csr.Spec.Username):
		return true, fmt.Sprintf("join of accepted cluster %s requested by auto-approved user %s", request.Cluster, csr.Spec.Username), nil
	default:
		return false, fmt.Sprintf("a join request from %s: a hub admin approves it with 'corral accept %s'", csr.Spec.Username, request.Cluster), nil
	}
}

// mayRenew asks the API server whether the requester may renew its
// cluster's client certificates, as OCM's RBAC grants it.
func (r *Reconciler) mayRenew(ctx context.Context, csr *certificatesv1.CertificateSigningRequest) (bool, error) {
	spec := csr.Spec
	allowed, err := common.Allowed(ctx, r.Kube, spec.Username, spec.UID, spec.Groups, spec.Extra, authorizationv1.ResourceAttributes{
		Group: common.RegisterGroup, Resource: "managedclusters", Subresource: "clientcertificates", Verb: "renew",
	})
	if err != nil {
		return false, fmt.Errorf("reviewing %s's access: %w", csr.Spec.Username, err)
	}
	return allowed, nil
}

func (r *Reconciler) event(csr *certificatesv1.CertificateSigningRequest, typ, reason, note string) {
	if r.Recorder != nil {
		r.Recorder.Eventf(csr, nil, typ, reason, "Approval", "%s", note)
	}
}
