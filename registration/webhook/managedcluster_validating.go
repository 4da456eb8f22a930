package webhook

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/corral-dev/corral/internal/admissionreview"
	"github.com/corral-dev/corral/registration/clientcsr"
	"github.com/corral-dev/corral/registration/common"
)

// maxTaintValue is the longest taint value the API allows.
const maxTaintValue = 1024

// dnsLabelProblem is how a cluster name that is not a DNS-1123 label is
// refused.
const dnsLabelProblem = "the name must be a DNS-1123 label"

// taintEffects are the effects a taint may have.
var taintEffects = []clusterv1.TaintEffect{clusterv1.TaintEffectNoSelect, clusterv1.TaintEffectPreferNoSelect, clusterv1.TaintEffectNoSelectIfNew}

// clusterValidator is the validating webhook of ManagedClusters: well-formed
// fields, and the permissions to accept a cluster and to move it between
// cluster sets.
type clusterValidator struct {
	kube   kubernetes.Interface
	access accessReviewer
}

var _ admission.Handler = &clusterValidator{}

// Handle admits or refuses a ManagedCluster being created or updated.
func (v *clusterValidator) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return admission.Allowed("")
	}
	cluster, old, resp := decodeClusters(req)
	if cluster == nil {
		return resp
	}
	log := ctrl.LoggerFrom(ctx).WithValues("cluster", cluster.Name, "user", req.UserInfo.Username, "operation", req.Operation)
	if old != nil && slices.Contains(req.UserInfo.Groups, clientcsr.ClusterGroup(cluster.Name)) && !sameTaints(hubTaints(cluster.Spec.Taints), hubTaints(old.Spec.Taints)) {
		log.V(1).Info("Refusing a cluster's agent changing the hub's taints")
		return admission.Denied(fmt.Sprintf("managed cluster %q: its agent may not add or remove the taints %s and %s: the hub sets them",
			cluster.Name, clusterv1.ManagedClusterTaintUnreachable, clusterv1.ManagedClusterTaintUnavailable))
	}
	if problems := validateCluster(cluster, old); len(problems) > 0 {
		log.V(1).Info("Refusing a malformed ManagedCluster", "problems", problems)
		return admissionreview.Invalid("managed cluster %q: %s", cluster.Name, strings.Join(problems, "; "))
	}
	if cluster.Spec.HubAcceptsClient && (old == nil || !old.Spec.HubAcceptsClient) {
		if resp := v.admitAccept(ctx, req, cluster.Name); !resp.Allowed {
			log.V(1).Info("Refusing to accept the cluster", "reason", resp.Result.Message)
			return resp
		}
	}
	var from string
	if old != nil {
		from = old.Labels[clusterv1beta2.ClusterSetLabel]
	}
	if resp := v.admitClusterSetChange(ctx, req, cluster.Name, from, cluster.Labels[clusterv1beta2.ClusterSetLabel]); !resp.Allowed {
		log.V(1).Info("Refusing a cluster set change", "reason", resp.Result.Message)
		return resp
	}
	log.V(4).Info("Admitted ManagedCluster")
	return admission.Allowed("")
}

// validateCluster lists what is malformed in cluster, each as a phrase. On
// an update (old is not nil) it looks only at what changed, so that a
// cluster stored before the webhooks ran can still be updated and deleted.
func validateCluster(cluster, old *clusterv1.ManagedCluster) []string {
	var problems []string
	if msgs := validation.IsDNS1123Label(cluster.Name); old == nil && len(msgs) > 0 {
		problems = append(problems, fmt.Sprintf("%s, as it names the cluster namespace: %s", dnsLabelProblem, msgs[0]))
	}
	if why := common.ReservedClusterName(cluster.Name); old == nil && why != "" {
		problems = append(problems, why)
	}
	if old == nil || !equality.Semantic.DeepEqual(cluster.Spec.ManagedClusterClientConfigs, old.Spec.ManagedClusterClientConfigs) {
		for i, cc := range cluster.Spec.ManagedClusterClientConfigs {
			if u, err := url.Parse(cc.URL); err != nil || u.Scheme != "https" || u.Host == "" {
				problems = append(problems, fmt.Sprintf("spec.managedClusterClientConfigs[%d].url %q is not an https URL with a host", i, cc.URL))
			}
		}
	}
	if old == nil || !sameTaints(cluster.Spec.Taints, old.Spec.Taints) {
		problems = append(problems, validateTaints(cluster.Spec.Taints)...)
	}
	return problems
}

// hubTaints are the taints among taints that only the hub may set, as the
// api says of them.
func hubTaints(taints []clusterv1.Taint) []clusterv1.Taint {
	var out []clusterv1.Taint
	for _, t := range taints {
		if t.Key == clusterv1.ManagedClusterTaintUnreachable || t.Key == clusterv1.ManagedClusterTaintUnavailable {
			out = append(out, t)
		}
	}
	return out
}

// sameTaints reports whether a and b hold the same taints in the same
// order, whatever their timeAdded.
func sameTaints(a, b []clusterv1.Taint) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || a[i].Value != b[i].Value || a[i].Effect != b[i].Effect {
			return false
		}
	}
	return true
}

// validateTaints lists what is malformed in taints.
func validateTaints(taints []clusterv1.Taint) []string {
	var problems []string
	for i, t := range taints {
		if msgs := validation.IsQualifiedName(t.Key); len(msgs) > 0 {
			problems = append(problems, fmt.Sprintf("spec.taints[%d].key %q is not a qualified name: %s", i, t.Key, msgs[0]))
		}
		if !knownEffect(t.Effect) {
			problems = append(problems, fmt.Sprintf("spec.taints[%d].effect %q is not one of %v", i, t.Effect, taintEffects))
		}
		if len(t.Value) > maxTaintValue {
			problems = append(problems, fmt.Sprintf("spec.taints[%d].value is %d characters long, more than %d", i, len(t.Value), maxTaintValue))
		}
		for j := range i {
			if taints[j].Key == t.Key && taints[j].Effect == t.Effect {
				problems = append(problems, fmt.Sprintf("spec.taints[%d] repeats key %q with effect %s of spec.taints[%d]: keep one taint per key and effect", i, t.Key, t.Effect, j))
				break
			}
		}
	}
	return problems
}

func knownEffect(e clusterv1.TaintEffect) bool {
	for _, known := range taintEffects {
		if e == known {
			return true
		}
	}
	return false
}

// admitAccept allows hubAcceptsClient to become true for a user with
// managedclusters/accept, unless the cluster namespace is going away.
func (v *clusterValidator) admitAccept(ctx context.Context, req admission.Request, cluster string) admission.Response {
	ns, err := v.kube.CoreV1().Namespaces().Get(ctx, cluster, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return admission.Errored(http.StatusInternalServerError, fmt.Errorf("reading the namespace of managed cluster %q: %w", cluster, err))
	case ns.Status.Phase == corev1.NamespaceTerminating:
		return forbidden("managed cluster %q cannot be accepted while its namespace is terminating: set spec.hubAcceptsClient to true again once the namespace is gone", cluster)
	}
	ok, err := v.access.allowed(ctx, req.UserInfo, acceptCluster, cluster)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	if !ok {
		return forbidden("user %q may not accept managed cluster %q (spec.hubAcceptsClient: true): it needs %s",
			req.UserInfo.Username, cluster, acceptCluster.describe(cluster))
	}
	return admission.Allowed("")
}

// admitClusterSetChange allows a cluster to leave the set from and enter
// the set to for a user with managedclustersets/join on both.
func (v *clusterValidator) admitClusterSetChange(ctx context.Context, req admission.Request, cluster, from, to string) admission.Response {
	if from == to {
		return admission.Allowed("")
	}
	// action says what the user tried, ending before the set's name.
	check := func(set, action string) admission.Response {
		ok, err := v.access.allowed(ctx, req.UserInfo, joinClusterSet, set)
		if err != nil {
			return admission.Errored(http.StatusInternalServerError, err)
		}
		if !ok {
			return forbidden("user %q may not %s cluster set %q: it needs %s",
				req.UserInfo.Username, action, set, joinClusterSet.describe(set))
		}
		return admission.Allowed("")
	}
	if from != "" {
		if resp := check(from, fmt.Sprintf("take managed cluster %q out of", cluster)); !resp.Allowed {
			return resp
		}
	}
	if to != "" {
		return check(to, fmt.Sprintf("add managed cluster %q to", cluster))
	}
	return admission.Allowed("")
}
