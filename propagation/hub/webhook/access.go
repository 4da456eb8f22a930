package webhook

import (
	"context"
	"fmt"
	"net/http"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/corral-dev/corral/registration/common"
)

// everything is every resource of every API group: what reading a
// namespace with its contents needs.
var everything = schema.GroupResource{Group: "*", Resource: "*"}

// placements are OCM's Placements, which a ClusterPropagation names.
var placements = schema.GroupResource{Group: clusterv1beta1.GroupName, Resource: "placements"}

// need is one permission a write needs, and why.
type need struct {
	attrs authorizationv1.ResourceAttributes
	// what needs it: selector 2 (every Secret.v1), or to Placement
	// ns/name.
	what string
}

// checkReads asks the API server whether the writer has every permission
// w needs, each once, refusing at the first it lacks.
func (v *Validator) checkReads(ctx context.Context, w write, mappings []mapping) admission.Response {
	user := w.user
	asked := map[authorizationv1.ResourceAttributes]bool{}
	for _, n := range w.needs(mappings) {
		if asked[n.attrs] {
			continue
		}
		asked[n.attrs] = true
		ok, err := common.Allowed(ctx, v.Kube, user.Username, user.UID, user.Groups, user.Extra, n.attrs)
		if err != nil {
			return admission.Errored(http.StatusInternalServerError,
				fmt.Errorf("%s: asking the API server whether user %q may %s: %w", w.what, user.Username, describe(n.attrs), err))
		}
		if !ok {
			ctrl.LoggerFrom(ctx).V(1).Info("Refusing a propagation of what its writer may not read", "propagation", w.what, "user", user.Username, "for", n.what)
			return admission.Denied(fmt.Sprintf("%s: user %q may not deliver %s: it needs %s (a propagation delivers only what its writer may read)",
				w.what, user.Username, n.what, describe(n.attrs)))
		}
	}
	return admission.Allowed("")
}

// needs are the permissions w needs: for each selector, reading what it
// selects (and a namespace's contents), then getting each placement.
func (w write) needs(mappings []mapping) []need {
	var out []need
	for i, s := range w.selectors {
		what := fmt.Sprintf("selector %d (%s)", s.index, s.describe())
		out = append(out, reads(mappings[i].resource, w.namespace, s.Name, what)...)
		if !s.withContents() {
			continue
		}
		// A Namespace by name brings what is in it; by labels, or every
		// one, what is in any namespace.
		what += " with its contents"
		out = append(out, reads(everything, s.Name, "", what)...)
	}
	for _, p := range w.placements {
		out = append(out, need{what: fmt.Sprintf("to Placement %s/%s", p.Namespace, p.Name), attrs: authorizationv1.ResourceAttributes{
			Verb: "get", Group: placements.Group, Resource: placements.Resource, Namespace: p.Namespace, Name: p.Name,
		}})
	}
	return out
}

// reads are the permissions reading r in namespace (empty: cluster-wide)
// needs: get of the object named name, or get and list of them all.
func reads(r schema.GroupResource, namespace, name, what string) []need {
	attrs := func(verb string) need {
		return need{what: what, attrs: authorizationv1.ResourceAttributes{Verb: verb, Group: r.Group, Resource: r.Resource, Namespace: namespace, Name: name}}
	}
	if name != "" {
		return []need{attrs("get")}
	}
	return []need{attrs("get"), attrs("list")}
}

// describe says a permission as a refusal names it: verb on resource
// (API group g) named n in namespace ns, or cluster-wide.
func describe(a authorizationv1.ResourceAttributes) string {
	s := a.Verb + " on "
	if a.Resource == everything.Resource && a.Group == everything.Group {
		s += "every resource (API group *, resource *)"
	} else {
		s += a.Resource
		if a.Group != "" {
			s += " (API group " + a.Group + ")"
		}
	}
	if a.Name != "" {
		s += fmt.Sprintf(" named %q", a.Name)
	}
	if a.Namespace != "" {
		return s + " in namespace " + a.Namespace
	}
	return s + " cluster-wide"
}
