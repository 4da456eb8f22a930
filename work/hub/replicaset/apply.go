package replicaset

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TemplateHash identifies the set's template: its works carry it in
// TemplateHashAnnotation once they hold that template.
func TemplateHash(set *workv1alpha1.ManifestWorkReplicaSet) (string, error) {
	raw, err := json.Marshal(set.Spec.ManifestWorkTemplate)
	if err != nil {
		return "", fmt.Errorf("hashing the ManifestWork template: %w", err)
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:8]), nil
}

// applyWork makes the set's work in the cluster's namespace match its
// template: created when missing, updated when made from another
// template. A work of that name which is not the set's is left alone.
func (r *Reconciler) applyWork(ctx context.Context, s *scope, cluster, placement string, current *workv1.ManifestWork) error {
	log := ctrl.LoggerFrom(ctx)
	if current == nil {
		found := &workv1.ManifestWork{}
		err := r.Client.Get(ctx, client.ObjectKey{Namespace: cluster, Name: s.set.Name}, found)
		switch {
		case apierrors.IsNotFound(err):
			w := s.desiredWork(cluster, placement, nil)
			if err := r.Client.Create(ctx, w); err != nil {
				if apierrors.IsNotFound(err) {
					return fmt.Errorf("creating ManifestWork %s/%s: cluster namespace %s does not exist", cluster, s.set.Name, cluster)
				}
				return fmt.Errorf("creating ManifestWork %s/%s: %w", cluster, s.set.Name, err)
			}
			log.V(1).Info("Created a ManifestWork", "work", klog.KObj(w), "placement", placement)
			s.works = append(s.works, *w)
			return nil
		case err != nil:
			return fmt.Errorf("reading ManifestWork %s/%s: %w", cluster, s.set.Name, err)
		case found.Labels[workv1alpha1.ManifestWorkReplicaSetControllerNameLabelKey] != SetKey(s.set):
			return fmt.Errorf("ManifestWork %s/%s exists and is not this set's (no label %s=%s): left alone",
				cluster, s.set.Name, workv1alpha1.ManifestWorkReplicaSetControllerNameLabelKey, SetKey(s.set))
		}
		current = found
	}
	if current.Annotations[TemplateHashAnnotation] == s.hash && current.Labels[workv1alpha1.ManifestWorkReplicaSetPlacementNameLabelKey] == placement {
		return nil
	}
	w := s.desiredWork(cluster, placement, current)
	if err := r.Client.Update(ctx, w); err != nil {
		return fmt.Errorf("updating ManifestWork %s/%s: %w", cluster, s.set.Name, err)
	}
	log.V(1).Info("Updated a ManifestWork to the set's template", "work", klog.KObj(w), "placement", placement)
	s.replaceWork(w)
	return nil
}

// desiredWork is the set's work for the cluster: current (when given)
// with the set's labels, template hash and spec, and the time it is given
// a template it did not have.
func (s *scope) desiredWork(cluster, placement string, current *workv1.ManifestWork) *workv1.ManifestWork {
	w := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: s.set.Name}}
	if current != nil {
		w = current.DeepCopy()
	}
	if w.Labels == nil {
		w.Labels = map[string]string{}
	}
	for k, v := range s.set.Labels {
		w.Labels[k] = v
	}
	w.Labels[workv1alpha1.ManifestWorkReplicaSetControllerNameLabelKey] = SetKey(s.set)
	w.Labels[workv1alpha1.ManifestWorkReplicaSetPlacementNameLabelKey] = placement
	if w.Annotations == nil {
		w.Annotations = map[string]string{}
	}
	if w.Annotations[TemplateHashAnnotation] != s.hash {
		w.Annotations[TemplateTimeAnnotation] = s.now.UTC().Format(time.RFC3339)
	}
	w.Annotations[TemplateHashAnnotation] = s.hash
	s.set.Spec.ManifestWorkTemplate.DeepCopyInto(&w.Spec)
	return w
}

// replaceWork puts w in place of the scope's copy of it.
func (s *scope) replaceWork(w *workv1.ManifestWork) {
	for i := range s.works {
		if s.works[i].Namespace == w.Namespace && s.works[i].Name == w.Name {
			s.works[i] = *w
			return
		}
	}
	s.works = append(s.works, *w)
}

// dropWork takes w out of the scope's works.
func (s *scope) dropWork(w *workv1.ManifestWork) {
	ns, name := w.Namespace, w.Name
	kept := s.works[:0]
	for _, x := range s.works {
		if x.Namespace != ns || x.Name != name {
			kept = append(kept, x)
		}
	}
	s.works = kept
}
