package selector

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/revision"
)

// ReasonSelected: the selectors resolved and their objects are the
// current revision.
const ReasonSelected = "Selected"

// listTimeout bounds how long a list waits for a newly started informer
// to sync (a kind the hub's identity may not watch never does).
const listTimeout = 30 * time.Second

// maxListed is how many skipped objects a condition names.
const maxListed = 5

// objectKey identifies a delivered object: two objects of one key in a
// revision would overwrite each other on a cluster.
type objectKey struct {
	gk schema.GroupKind
	types.NamespacedName
}

func keyOf(obj *unstructured.Unstructured) objectKey {
	return objectKey{obj.GroupVersionKind().GroupKind(), types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}}
}

// selection gathers the selected objects into s.objects, each once.
type selection struct {
	s *scope
	// origin of each object taken: "" for a hub object; for an object of
	// an envelope, the envelope and key, as messages name them.
	origin map[objectKey]string
	// opened is how many objects each envelope taken delivers.
	opened map[objectKey]int
}

// selectObjects lists every selector's objects (and the contents of the
// namespaces selected with their resources), drops the skipped ones,
// opens the envelopes, and cleans and sorts the rest into s.objects. A
// selector with nothing that may be delivered, an envelope that does not
// open, and two objects of one kind, namespace and name block the
// selection.
func (r *Reconciler) selectObjects(ctx context.Context, s *scope) (steps.Result, error) {
	sel := &selection{s: s, origin: map[objectKey]string{}, opened: map[objectKey]int{}}
	for i, rs := range s.selectors {
		objs, err := r.list(ctx, s.mappings[i], s.namespace, rs.ResourceSelector)
		if err != nil {
			return steps.StopList, err
		}
		kept := 0
		for _, obj := range objs {
			n, err := r.take(sel, obj)
			if err != nil || s.blocked() {
				return r.stop(ctx, s, err)
			}
			kept += n
			if n == 0 || !bringsContents(rs) {
				continue
			}
			contents, err := r.namespaceContents(ctx, obj.GetName())
			if err != nil {
				return steps.StopList, err
			}
			for _, c := range contents {
				if _, err := r.take(sel, c); err != nil || s.blocked() {
					return r.stop(ctx, s, err)
				}
			}
		}
		if kept == 0 {
			s.block(v1alpha1.ReasonNothingSelected, fmt.Sprintf("selector %d (%s) selects nothing that may be delivered%s", i+1, describeSelector(rs.ResourceSelector), s.skippedSuffix()))
			return r.stop(ctx, s, nil)
		}
	}
	revision.Sort(s.objects)
	s.selected = &metav1.Condition{Type: v1alpha1.ConditionSelected, Status: metav1.ConditionTrue, Reason: ReasonSelected}
	ctrl.LoggerFrom(ctx).V(4).Info("Selected", "objects", len(s.objects), "skipped", len(s.skipped))
	return steps.Continue, nil
}

// stop ends the list after a step that blocked the selection (writing
// the Selected condition; an unknown kind is looked at again after
// UnknownKindRetry) or failed with err.
func (r *Reconciler) stop(ctx context.Context, s *scope, err error) (steps.Result, error) {
	if err != nil {
		return steps.StopList, err
	}
	res := steps.StopList
	if s.selected.Reason == v1alpha1.ReasonUnknownKind {
		res.RequeueAfter = UnknownKindRetry
	}
	return res, r.writeStatus(ctx, s)
}

// take adds a selected hub object, or the objects of an envelope, to the
// selection, and says how many objects it delivers: 0 for a skipped
// one. A hub object selected again is taken once; a second object of one
// key from anywhere else blocks the selection.
func (r *Reconciler) take(sel *selection, obj *unstructured.Unstructured) (int, error) {
	s := sel.s
	key := keyOf(obj)
	if reason, skip := revision.Skipped(obj); skip {
		s.skipped = append(s.skipped, fmt.Sprintf("%s %s: %s", obj.GetKind(), key.NamespacedName, reason))
		return 0, nil
	}
	if revision.IsEnvelope(obj) {
		if n, ok := sel.opened[key]; ok {
			return n, nil
		}
		n, err := r.open(sel, obj)
		sel.opened[key] = n
		return n, err
	}
	if origin, ok := sel.origin[key]; ok {
		if origin != "" {
			s.block(ReasonDuplicate, fmt.Sprintf("%s is selected on the hub and is in %s; deliver each object once", describe(obj), origin))
		}
		return 1, nil
	}
	sel.origin[key] = ""
	obj = obj.DeepCopy()
	revision.Clean(obj)
	s.objects = append(s.objects, obj)
	return 1, nil
}

// bringsContents says whether a selector's Namespaces bring what is in
// them.
func bringsContents(sel v1alpha1.ClusterResourceSelector) bool {
	return sel.Group == "" && sel.Kind == "Namespace" && sel.SelectionScope != v1alpha1.NamespaceOnly
}

// list reads the objects one selector selects: the one of its name, or
// those its label selector matches (all with neither), in namespace ("" for
// cluster-scoped kinds).
func (r *Reconciler) list(ctx context.Context, m *meta.RESTMapping, namespace string, sel v1alpha1.ResourceSelector) ([]*unstructured.Unstructured, error) {
	if r.Watch != nil {
		if err := r.Watch(ctx, m); err != nil {
			return nil, fmt.Errorf("watching %s: %w", m.Resource, err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	reader := r.Reader
	if r.Uncached[m.GroupVersionKind.GroupKind()] {
		reader = r.APIReader
	}
	if sel.Name != "" {
		obj := &unstructured.Unstructured{}
		obj.SetGroupVersionKind(m.GroupVersionKind)
		err := reader.Get(ctx, types.NamespacedName{Namespace: namespace, Name: sel.Name}, obj)
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s %s: %w", m.Resource, sel.Name, err)
		}
		return []*unstructured.Unstructured{obj}, nil
	}
	matching := labels.Everything()
	if sel.LabelSelector != nil {
		var err error
		if matching, err = metav1.LabelSelectorAsSelector(sel.LabelSelector); err != nil {
			return nil, fmt.Errorf("label selector of %s: %w", m.Resource, err)
		}
	}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(m.GroupVersionKind.GroupVersion().WithKind(m.GroupVersionKind.Kind + "List"))
	opts := []client.ListOption{client.MatchingLabelsSelector{Selector: matching}}
	if namespace != "" {
		opts = append(opts, client.InNamespace(namespace))
	}
	if err := reader.List(ctx, list, opts...); err != nil {
		return nil, fmt.Errorf("listing %s: %w", m.Resource, err)
	}
	out := make([]*unstructured.Unstructured, 0, len(list.Items))
	for i := range list.Items {
		obj := &list.Items[i]
		if obj.GetKind() == "" {
			obj.SetGroupVersionKind(m.GroupVersionKind)
		}
		out = append(out, obj)
	}
	return out, nil
}

// skippedSuffix is "; skipped: …" naming the first skipped objects, or "".
func (s *scope) skippedSuffix() string {
	if len(s.skipped) == 0 {
		return ""
	}
	listed := slices.Clone(s.skipped)
	slices.Sort(listed)
	more := ""
	if len(listed) > maxListed {
		more = fmt.Sprintf(" and %d more", len(listed)-maxListed)
		listed = listed[:maxListed]
	}
	return "; skipped: " + strings.Join(listed, "; ") + more
}

// describe names an object in messages: Kind namespace/name, or Kind
// name.
func describe(obj *unstructured.Unstructured) string {
	if ns := obj.GetNamespace(); ns != "" {
		return obj.GetKind() + " " + ns + "/" + obj.GetName()
	}
	return obj.GetKind() + " " + obj.GetName()
}

// describeSelector names a selector in messages.
func describeSelector(sel v1alpha1.ResourceSelector) string {
	kind := describeGVK(schema.GroupVersionKind{Group: sel.Group, Version: sel.Version, Kind: sel.Kind})
	switch {
	case sel.Name != "":
		return kind + " " + sel.Name
	case sel.LabelSelector != nil:
		return kind + " " + metav1.FormatLabelSelector(sel.LabelSelector)
	}
	return "every " + kind
}
