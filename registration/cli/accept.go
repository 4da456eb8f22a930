package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	certificatesv1 "k8s.io/api/certificates/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/registration/bootstrap"
	"github.com/corral-dev/corral/registration/clientcsr"
	"github.com/corral-dev/corral/registration/common"
)

// ReasonAccepted is the approval reason of CSRs approved by `corral accept`.
const ReasonAccepted = "AcceptedByHubAdmin"

// AcceptOptions are the options of `corral accept`.
type AcceptOptions struct {
	Out io.Writer
	Hub hubclient.Hub
	// Clusters are the clusters to accept.
	Clusters []string
	// Requesters are the users whose join requests accept approves.
	Requesters []string
	// Wait, when set, waits until every cluster has asked to join (its
	// ManagedCluster and a join request accept would approve exist, or it
	// is accepted already) before changing anything.
	Wait bool
	// Timeout bounds Wait.
	Timeout time.Duration
}

// DefaultAcceptTimeout is how long accept --wait waits by default.
const DefaultAcceptTimeout = 5 * time.Minute

// askPoll is how often accept --wait looks again.
const askPoll = 500 * time.Millisecond

// NewAcceptOptions approves join requests from the bootstrap identity only.
func NewAcceptOptions(out io.Writer) *AcceptOptions {
	return &AcceptOptions{Out: out, Hub: hubclient.New(), Requesters: bootstrap.Requesters(), Timeout: DefaultAcceptTimeout}
}

// NewCmdAccept returns `corral accept`.
func NewCmdAccept(out io.Writer) *cobra.Command {
	o := NewAcceptOptions(out)
	cmd := &cobra.Command{
		Use:   "accept CLUSTER...",
		Short: "Accept clusters that asked to join, approving their agents' join requests",
		Long: `Accept clusters that asked to join: approve each one's pending join request
(a CSR from the bootstrap identity, for exactly that cluster's client
certificate) and set spec.hubAcceptsClient. Every cluster is checked before
anything changes; a request that is not a well-formed join request is left
pending and reported. Safe to run again.

With --wait, accept first waits (up to --timeout) until every cluster named
has asked to join: right after 'corral join', its agent may not have
created its ManagedCluster or its request yet.`,
		Example: "  corral accept cluster1 cluster2\n  corral accept cluster1 --wait --timeout 2m",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Clusters = args
			return hubclient.Run(cmd.Context(), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the hub's flags, --requesters, --wait and --timeout.
func (o *AcceptOptions) AddFlags(fs *pflag.FlagSet) {
	o.Hub.AddFlags(fs)
	fs.StringSliceVar(&o.Requesters, "requesters", o.Requesters, "users whose join requests are approved (bootstrap-token users in group "+bootstrap.TokenGroup+" are too)")
	fs.BoolVar(&o.Wait, "wait", false, "wait until every cluster has asked to join before accepting")
	fs.DurationVar(&o.Timeout, "timeout", o.Timeout, "how long --wait waits")
}

// Validate checks the timeout and the cluster names, keeping each name once.
func (o *AcceptOptions) Validate() (err error) {
	if o.Wait && o.Timeout <= 0 {
		return fmt.Errorf("--timeout is %s: give --wait a positive time to wait, such as 5m", o.Timeout)
	}
	o.Clusters, err = common.ClusterNames(o.Clusters)
	return err
}

// Complete builds the hub clients.
func (o *AcceptOptions) Complete() error { return o.Hub.Complete() }

// oneLine is errs as one error on one line, each after the other; nil
// when there are none. A verb that checked several clusters says what is
// wrong with each, on the one line an error gets.
func oneLine(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	msgs := make([]string, len(errs))
	for i, err := range errs {
		msgs[i] = err.Error()
	}
	return errors.New(strings.Join(msgs, "; "))
}

// pendingCSRs are the cluster's CSRs (by OCM's cluster-name label) that are
// neither approved nor denied.
func pendingCSRs(ctx context.Context, kube kubernetes.Interface, cluster string) ([]*certificatesv1.CertificateSigningRequest, error) {
	csrs, err := kube.CertificatesV1().CertificateSigningRequests().List(ctx, metav1.ListOptions{
		LabelSelector: clusterv1.ClusterNameLabelKey + "=" + cluster,
	})
	if err != nil {
		return nil, fmt.Errorf("listing the certificate requests of %s: %w", cluster, err)
	}
	var pending []*certificatesv1.CertificateSigningRequest
	for i := range csrs.Items {
		if clientcsr.Pending(&csrs.Items[i]) {
			pending = append(pending, &csrs.Items[i])
		}
	}
	return pending, nil
}

// acceptPlan is what accepting one cluster will do.
type acceptPlan struct {
	cluster *clusterv1.ManagedCluster
	approve []*certificatesv1.CertificateSigningRequest
	skipped []string // why other pending requests are left alone
}

// asked says the cluster has a join request to approve, or is accepted
// already (its agent may be joined, with nothing left to ask).
func (p acceptPlan) asked() bool {
	return len(p.approve) > 0 || p.cluster.Spec.HubAcceptsClient
}

// Run plans every cluster (with Wait, until every one has asked), then,
// if all can be accepted, accepts them.
func (o *AcceptOptions) Run(ctx context.Context) error {
	plans, notYet, err := o.planAll(ctx)
	if err == nil && notYet != nil && o.Wait {
		plans, err = o.waitAsked(ctx, notYet)
		notYet = nil
	}
	if err == nil {
		err = oneLine(notYet)
	}
	if err != nil {
		return fmt.Errorf("nothing was changed: %w", err)
	}
	for _, plan := range plans {
		if err := o.accept(ctx, plan); err != nil {
			return err
		}
	}
	return nil
}

// waitAsked plans every cluster again until every one has asked, failing
// with why some have not once Timeout passes. A look that fails is tried
// again (the hub may be busy or restarting) unless the hub refused it.
func (o *AcceptOptions) waitAsked(ctx context.Context, notYet []error) ([]acceptPlan, error) {
	fmt.Fprintf(o.Out, "Waiting up to %s for %d of %d clusters to ask to join\n", o.Timeout, len(notYet), len(o.Clusters))
	var plans []acceptPlan
	var err error
	refused := func(err error) bool {
		return apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) || ctx.Err() != nil
	}
	// Each look runs on ctx, not the poll's: the look the timeout cuts
	// short would fail instead of saying who has not asked.
	_ = wait.PollUntilContextTimeout(ctx, askPoll, o.Timeout, false, func(context.Context) (bool, error) {
		plans, notYet, err = o.planAll(ctx)
		if err != nil && refused(err) {
			return false, err
		}
		return err == nil && notYet == nil, nil
	})
	switch {
	case err != nil && refused(err):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("waited %s: %w", o.Timeout, err)
	case notYet != nil:
		return nil, fmt.Errorf("waited %s: %w", o.Timeout, oneLine(notYet))
	}
	return plans, nil
}

// planAll plans every cluster. notYet says which have not asked to join:
// no ManagedCluster, or (with Wait) no join request to approve while not
// accepted. err is the first error of any other kind: the hub refusing,
// or out of reach.
func (o *AcceptOptions) planAll(ctx context.Context) (plans []acceptPlan, notYet []error, err error) {
	for _, name := range o.Clusters {
		plan, err := o.plan(ctx, name)
		switch {
		case errors.Is(err, errNotAsked):
			notYet = append(notYet, err)
		case err != nil:
			return nil, nil, err
		case o.Wait && !plan.asked():
			notYet = append(notYet, fmt.Errorf("cluster %s has not asked for a certificate: it has no join request accept would approve", name))
		default:
			plans = append(plans, plan)
		}
	}
	return plans, notYet, nil
}

// errNotAsked: the cluster named has no ManagedCluster on the hub.
var errNotAsked = errors.New("has not asked to join")

func (o *AcceptOptions) plan(ctx context.Context, name string) (acceptPlan, error) {
	mc, err := o.Hub.Clusters.ClusterV1().ManagedClusters().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return acceptPlan{}, fmt.Errorf("cluster %s %w: there is no ManagedCluster %s on the hub", name, errNotAsked, name)
	}
	if err != nil {
		return acceptPlan{}, err
	}
	pending, err := pendingCSRs(ctx, o.Hub.Kube, name)
	if err != nil {
		return acceptPlan{}, err
	}
	plan := acceptPlan{cluster: mc}
	held := common.Held(mc)
	for _, csr := range pending {
		req, err := clientcsr.Validate(csr)
		switch {
		case err != nil:
			plan.skipped = append(plan.skipped, fmt.Sprintf("%s pending: %v", csr.Name, err))
		case req.Cluster != name:
			plan.skipped = append(plan.skipped, fmt.Sprintf("%s pending: it is for cluster %s", csr.Name, req.Cluster))
		case !bootstrap.IsJoinRequester(csr.Spec.Username, csr.Spec.Groups, o.Requesters):
			plan.skipped = append(plan.skipped, fmt.Sprintf("%s pending: requested by %s, not a bootstrap identity (--requesters, or a bootstrap-token user in %s)",
				csr.Name, csr.Spec.Username, bootstrap.TokenGroup))
		case held:
			plan.skipped = append(plan.skipped, fmt.Sprintf("%s pending: %s is joined and its agent is heartbeating, so a request for %s is not approved "+
				"(deny it with 'kubectl certificate deny %s', or unjoin the cluster first)", csr.Name, name, req.CommonName, csr.Name))
		default:
			plan.approve = append(plan.approve, csr)
		}
	}
	return plan, nil
}

func (o *AcceptOptions) accept(ctx context.Context, plan acceptPlan) error {
	name := plan.cluster.Name
	for _, csr := range plan.approve {
		clientcsr.Approve(csr, ReasonAccepted, "approved by a hub admin with corral accept")
		if _, err := o.Hub.Kube.CertificatesV1().CertificateSigningRequests().UpdateApproval(ctx, csr.Name, csr, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("approving %s for %s: %w", csr.Name, name, err)
		}
		fmt.Fprintf(o.Out, "%s: approved join request %s from %s\n", name, csr.Name, csr.Spec.Username)
	}
	for _, why := range plan.skipped {
		fmt.Fprintf(o.Out, "%s: left request %s\n", name, why)
	}
	if plan.cluster.Spec.HubAcceptsClient {
		if len(plan.approve) == 0 {
			fmt.Fprintf(o.Out, "%s: already accepted, nothing to approve\n", name)
		}
		return nil
	}
	if err := setHubAcceptsClient(ctx, o.Hub.Clusters, name, true); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "%s: accepted\n", name)
	switch {
	case len(plan.approve) > 0:
	case common.Heartbeating(plan.cluster):
		// Accepted again soon after a deny: its identity is let in again.
		fmt.Fprintf(o.Out, "%s: its agent still heartbeats with the identity it had; the hub lets it in again\n", name)
	default:
		fmt.Fprintf(o.Out, "%s: its agent has not asked for a certificate yet; run 'corral accept %s' again once it has\n", name, name)
	}
	return nil
}

// setHubAcceptsClient patches spec.hubAcceptsClient.
func setHubAcceptsClient(ctx context.Context, clusters clusterclient.Interface, name string, accept bool) error {
	patch := fmt.Appendf(nil, `{"spec":{"hubAcceptsClient":%t}}`, accept)
	if _, err := clusters.ClusterV1().ManagedClusters().Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("setting hubAcceptsClient of %s: %w", name, err)
	}
	return nil
}
