package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/corral-dev/corral/registration/common"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
)

// kubeClientName is how a registration with the kube-apiserver-client
// signer is shown.
const kubeClientName = "kube-client"

// AddonState is what `corral addon list` and `status` say of one addon.
type AddonState struct {
	Name            string `json:"name"`
	DisplayName     string `json:"displayName,omitempty"`
	Description     string `json:"description,omitempty"`
	InstallStrategy string `json:"installStrategy,omitempty"`
	// Known is false for an addon enabled on clusters that the hub has
	// no ClusterManagementAddOn for.
	Known bool `json:"known"`
	// Template is true for an addon defined by an AddOnTemplate, which
	// corral does not render (templateNotice).
	Template bool           `json:"addOnTemplate,omitempty"`
	Clusters []ClusterState `json:"clusters"`
	// Rollouts are how far each install-strategy placement has rolled
	// the addon's configs out, as the hub reports it.
	Rollouts []RolloutState `json:"rollouts,omitempty"`
}

// RolloutState is the Progressing condition of one install progression.
type RolloutState struct {
	Placement string `json:"placement"`
	// Status is Progressing, Completed or Failed (the condition's reason).
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
}

// ClusterState is one addon's state on one cluster: its conditions'
// statuses ("" when not reported), its registrations and what is wrong.
type ClusterState struct {
	Cluster       string   `json:"cluster"`
	Available     string   `json:"available"`
	Degraded      string   `json:"degraded"`
	Progressing   string   `json:"progressing"`
	Registrations []string `json:"registrations,omitempty"`
	// Credentials is the registrations' state: ready, or what is pending
	// or failed.
	Credentials string `json:"credentials"`
	Message     string `json:"message,omitempty"`
}

// availableCount is how many clusters report the addon Available.
func (a AddonState) availableCount() int {
	n := 0
	for _, c := range a.Clusters {
		if c.Available == string(metav1.ConditionTrue) {
			n++
		}
	}
	return n
}

// stateOf builds an addon's state from its ClusterManagementAddOn (nil
// when the hub has none) and its ManagedClusterAddOns.
func stateOf(name string, cma *addonv1alpha1.ClusterManagementAddOn, mcas []addonv1alpha1.ManagedClusterAddOn) AddonState {
	s := AddonState{Name: name, Clusters: []ClusterState{}}
	if cma != nil {
		s.Known = true
		s.DisplayName, s.Description = cma.Spec.AddOnMeta.DisplayName, cma.Spec.AddOnMeta.Description
		s.InstallStrategy = cma.Spec.InstallStrategy.Type
		s.Template = isTemplateAddon(cma)
		for _, p := range cma.Status.InstallProgressions {
			if c := meta.FindStatusCondition(p.Conditions, addonv1alpha1.ManagedClusterAddOnConditionProgressing); c != nil {
				s.Rollouts = append(s.Rollouts, RolloutState{Placement: p.Namespace + "/" + p.Name, Status: c.Reason, Message: c.Message})
			}
		}
	}
	for i := range mcas {
		s.Clusters = append(s.Clusters, clusterStateOf(&mcas[i]))
	}
	slices.SortFunc(s.Clusters, func(a, b ClusterState) int { return strings.Compare(a.Cluster, b.Cluster) })
	return s
}

// isTemplateAddon says whether cma's addon is defined by an AddOnTemplate:
// it supports addontemplates configs, which OCM's addon manager renders.
//
//nolint:staticcheck // the stored v1alpha1 addon lists its configs in a deprecated field
func isTemplateAddon(cma *addonv1alpha1.ClusterManagementAddOn) bool {
	for _, c := range cma.Spec.SupportedConfigs {
		if c.Group == addonv1alpha1.GroupName && c.Resource == "addontemplates" {
			return true
		}
	}
	return false
}

// templateNotice says what becomes of an AddOnTemplate addon on a corral
// hub.
func templateNotice(addon string) string {
	return fmt.Sprintf("addon %s is defined by an AddOnTemplate, which corral does not render: "+
		"its agent is deployed only if OCM's addon manager runs against this hub", addon)
}

//nolint:staticcheck // the stored v1alpha1 registration names its signer in a deprecated field
func clusterStateOf(mca *addonv1alpha1.ManagedClusterAddOn) ClusterState {
	conds := mca.Status.Conditions
	st := ClusterState{
		Cluster:     mca.Namespace,
		Available:   conditionStatus(conds, addonv1alpha1.ManagedClusterAddOnConditionAvailable),
		Degraded:    conditionStatus(conds, addonv1alpha1.ManagedClusterAddOnConditionDegraded),
		Progressing: conditionStatus(conds, addonv1alpha1.ManagedClusterAddOnConditionProgressing),
		Credentials: credentials(mca),
		Message:     message(mca),
	}
	for _, r := range mca.Status.Registrations {
		name := r.SignerName
		if name == certificatesv1.KubeAPIServerClientSignerName {
			name = kubeClientName
		}
		st.Registrations = append(st.Registrations, name)
	}
	return st
}

func conditionStatus(conds []metav1.Condition, typ string) string {
	if c := meta.FindStatusCondition(conds, typ); c != nil {
		return string(c.Status)
	}
	return ""
}

// credentials says where the addon's registrations are: none needed,
// permission (hub RBAC) and certificate (from the agent) each pending,
// failed or ready.
func credentials(mca *addonv1alpha1.ManagedClusterAddOn) string {
	if len(mca.Status.Registrations) == 0 {
		return "none"
	}
	var problems []string
	for _, step := range []struct{ cond, what string }{
		{addonv1alpha1.ManagedClusterAddOnRegistrationApplied, "permission"},
		{common.ConditionCertificateRotated, "certificate"},
	} {
		switch conditionStatus(mca.Status.Conditions, step.cond) {
		case string(metav1.ConditionTrue):
		case string(metav1.ConditionFalse):
			problems = append(problems, step.what+" failed")
		default:
			problems = append(problems, step.what+" pending")
		}
	}
	if len(problems) == 0 {
		return "ready"
	}
	return strings.Join(problems, ", ")
}

// message is the message of the first condition that says something is
// wrong, else Available's.
func message(mca *addonv1alpha1.ManagedClusterAddOn) string {
	conds := mca.Status.Conditions
	for _, bad := range []struct {
		typ    string
		status metav1.ConditionStatus
		reason string // any, when empty
	}{
		{typ: addonv1alpha1.ManagedClusterAddOnConditionDegraded, status: metav1.ConditionTrue},
		{addonv1alpha1.ManagedClusterAddOnConditionProgressing, metav1.ConditionFalse, addonv1alpha1.ProgressingReasonConfigurationUnsupported},
		{addonv1alpha1.ManagedClusterAddOnConditionProgressing, metav1.ConditionFalse, addonv1alpha1.ProgressingReasonFailed},
		{typ: addonv1alpha1.ManagedClusterAddOnConditionAvailable, status: metav1.ConditionFalse},
		{typ: addonv1alpha1.ManagedClusterAddOnRegistrationApplied, status: metav1.ConditionFalse},
		{typ: common.ConditionCertificateRotated, status: metav1.ConditionFalse},
		{typ: addonv1alpha1.ManagedClusterAddOnConditionAvailable, status: metav1.ConditionUnknown},
		{typ: addonv1alpha1.ManagedClusterAddOnConditionProgressing, status: metav1.ConditionTrue},
	} {
		if c := meta.FindStatusCondition(conds, bad.typ); c != nil && c.Status == bad.status && (bad.reason == "" || c.Reason == bad.reason) {
			if c.Reason == addonv1alpha1.AddonAvailableReasonLeaseLeaseNotFound {
				// OCM's message says only that the status is unknown.
				where := "its install namespace"
				if mca.Status.Namespace != "" {
					where = "namespace " + mca.Status.Namespace
				}
				return fmt.Sprintf("%s (no lease %s in %s on the cluster: its agent has not started, or does not run)", c.Message, mca.Name, where)
			}
			return c.Message
		}
	}
	if c := meta.FindStatusCondition(conds, addonv1alpha1.ManagedClusterAddOnConditionAvailable); c != nil {
		return c.Message
	}
	return "waiting for the addon manager and agent to report"
}
