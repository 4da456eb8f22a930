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

// objectKey identifies a selected object, for selecting it once.
type objectKey struct {
	gvk schema.GroupVersionKind
	types.NamespacedName
}

// selectObjects lists every selector's objects (and the contents of the
// namespaces selected with their resources), drops the skipped ones and
// cleans and sorts the rest into s.objects. A selector with nothing that
// may be delivered blocks the selection.
func (r *Reconciler) selectObjects(ctx context.Context, s *scope) (steps.Result, error) {
	seen := map[objectKey]bool{}
	add := func(obj *unstructured.Unstructured) bool {
		key := objectKey{obj.GroupVersionKind(), types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}}
		if reason, skip := revision.Skipped(obj); skip {
			s.skipped = append(s.skipped, fmt.Sprintf("%s %s: %s", obj.GetKind(), key.NamespacedName, reason))
			return false
		}
		if !seen[key] {
			seen[key] = true
			obj = obj.DeepCopy()
			revision.Clean(obj)
			s.objects = append(s.objects, obj)
		}
		return true
	}
	for i, sel := range s.selectors {
		objs, err := r.list(ctx, s.mappings[i], s.namespace, sel.ResourceSelector)
		if err != nil {
			return steps.StopList, err
		}
		kept := 0
		for _, obj := range objs {
			if !add(obj) {
				continue
			}
			kept++
			if bringsContents(sel) {
				contents, err := r.namespaceContents(ctx, obj.GetName())
				if err != nil {
					return steps.StopList, err
				}
				for _, c := range contents {
					add(c)
				}
			}
		}
		if kept == 0 {
			s.block(v1alpha1.ReasonNothingSelected, fmt.Sprintf("selector %d (%s) selects nothing that may be delivered%s", i+1, describeSelector(sel.ResourceSelector), s.skippedSuffix()))
			return steps.StopList, r.writeStatus(ctx, s)
		}
	}
	revision.Sort(s.objects)
	s.selected = &metav1.Condition{Type: v1alpha1.ConditionSelected, Status: metav1.ConditionTrue, Reason: ReasonSelected}
	ctrl.LoggerFrom(ctx).V(4).Info("Selected", "objects", len(s.objects), "skipped", len(s.skipped))
	return steps.Continue, nil
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
