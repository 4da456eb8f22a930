package webhook

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// mapping is what the RESTMapper says of a selector's kind.
type mapping struct {
	// resource is the kind's resource, or, for a kind the hub does not
	// serve, the one its kind guesses.
	resource schema.GroupResource
	// known says the hub serves the kind; namespaced is its scope then.
	known, namespaced bool
}

// resolve maps s's kind at its version, else at any version the hub
// serves (the scope and resource are the kind's, whatever the version);
// a kind the hub does not serve is not known, with a guessed resource.
func (v *Validator) resolve(s selector) (mapping, error) {
	gvk := s.gvk()
	m, err := v.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		m, err = v.Mapper.RESTMapping(gvk.GroupKind())
	}
	switch {
	case meta.IsNoMatchError(err):
		plural, _ := meta.UnsafeGuessKindToResource(gvk)
		return mapping{resource: plural.GroupResource()}, nil
	case err != nil:
		return mapping{}, err
	}
	return mapping{resource: m.Resource.GroupResource(), known: true, namespaced: m.Scope.Name() == meta.RESTScopeNameNamespace}, nil
}

// scopeProblem says, in one line, what is wrong with selecting s's kind
// of mapping m in w, and what to use instead; empty when nothing is.
func (w write) scopeProblem(s selector, m mapping) string {
	switch {
	case !m.known:
		return "" // the selector controller reports it, and looks again
	case w.namespace != "" && !m.namespaced:
		return fmt.Sprintf("selector %d (%s) selects a cluster-scoped kind, and a Propagation selects objects of its own namespace: select it in a ClusterPropagation",
			s.index, s.describe())
	case w.namespace == "" && m.namespaced:
		return fmt.Sprintf("selector %d (%s) selects a namespaced kind, and a ClusterPropagation selects cluster-scoped objects: select the Namespace with selectionScope NamespaceWithResources, or use a Propagation in that namespace",
			s.index, s.describe())
	}
	return ""
}

func (s selector) gvk() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: s.Group, Version: s.Version, Kind: s.Kind}
}

// isNamespace says whether s selects core Namespaces.
func (s selector) isNamespace() bool { return s.Group == "" && s.Kind == "Namespace" }

// withContents says whether s brings the selected namespaces' contents.
func (s selector) withContents() bool {
	return s.isNamespace() && s.scope == v1alpha1.NamespaceWithResources
}

// describe names what s selects: Kind.version[.group] named N, with
// labels L, or every one.
func (s selector) describe() string {
	kind := s.Kind + "." + s.Version
	if s.Group != "" {
		kind += "." + s.Group
	}
	switch {
	case s.Name != "":
		return fmt.Sprintf("%s named %q", kind, s.Name)
	case s.LabelSelector != nil:
		return fmt.Sprintf("%s with labels %s", kind, labels(s.LabelSelector))
	}
	return "every " + kind
}

// labels is a label selector as kubectl's -l takes it.
func labels(ls *metav1.LabelSelector) string {
	sel, err := metav1.LabelSelectorAsSelector(ls)
	switch {
	case err != nil:
		return ls.String()
	case sel.Empty():
		return "{} (any)"
	}
	return sel.String()
}
