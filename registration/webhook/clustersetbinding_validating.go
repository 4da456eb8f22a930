package webhook

import (
	"context"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/corral-dev/corral/internal/admissionreview"
)

// bindingValidator is the validating webhook of ManagedClusterSetBindings: a
// binding is named after its set, and only a user allowed
// managedclustersets/bind on the set may create it.
type bindingValidator struct {
	access accessReviewer
}

var _ admission.Handler = &bindingValidator{}

// Handle admits or refuses a ManagedClusterSetBinding being created or
// updated.
func (v *bindingValidator) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return admission.Allowed("")
	}
	binding := &clusterv1beta2.ManagedClusterSetBinding{}
	if err := admissionreview.Decode(req.Object.Raw, binding); err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding the ManagedClusterSetBinding: %w", err))
	}
	log := ctrl.LoggerFrom(ctx).WithValues("binding", binding.Namespace+"/"+binding.Name, "user", req.UserInfo.Username, "operation", req.Operation)
	set := binding.Spec.ClusterSet
	if binding.Name != set {
		log.V(1).Info("Refusing a binding not named after its set", "clusterSet", set)
		return admissionreview.Invalid("managed cluster set binding %q in namespace %q binds cluster set %q: a binding must have the name of the set it binds (name it %q)",
			binding.Name, binding.Namespace, set, set)
	}
	if req.Operation == admissionv1.Update { // spec.clusterSet cannot change: it is the name
		return admission.Allowed("")
	}
	ok, err := v.access.allowed(ctx, req.UserInfo, bindClusterSet, set)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	if !ok {
		log.V(1).Info("Refusing a binding without bind permission", "clusterSet", set)
		return forbidden("user %q may not bind cluster set %q to namespace %q: it needs %s",
			req.UserInfo.Username, set, binding.Namespace, bindClusterSet.describe(set))
	}
	log.V(4).Info("Admitted ManagedClusterSetBinding")
	return admission.Allowed("")
}
