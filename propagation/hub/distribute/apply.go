package distribute

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/worktrim"
	"github.com/corral-dev/corral/work/adoption"
)

// applyCluster makes the cluster's works those of the delivered revision:
// one per part, created when missing, updated when they differ; works of
// parts the revision does not have are deleted. A work of a part's name
// that is not the propagation's is left alone, and said so.
func (r *Reconciler) applyCluster(ctx context.Context, s *scope, cluster string, current []workv1.ManifestWork) error {
	have := map[string]*workv1.ManifestWork{}
	for i := range current {
		have[current[i].Name] = &current[i]
	}
	cont := s.contentOf(ctx, cluster)
	if !cont.made() {
		// Not an error of the reconcile: the cluster's status says it.
		ctrl.LoggerFrom(ctx).V(1).Info("Keeping what the cluster has: the revision cannot be made for it", "cluster", cluster, "reason", cont.err)
		return nil
	}
	var errs []error
	for part, manifests := range cont.parts {
		name := s.p.workName(part)
		w := have[name]
		delete(have, name)
		if err := r.applyWork(ctx, s, cluster, part, manifests, w); err != nil {
			errs = append(errs, err)
		}
	}
	for _, w := range have {
		ctrl.LoggerFrom(ctx).V(1).Info("Deleting the ManifestWork of a part the revision does not have", "work", klog.KObj(w))
		if err := r.deleteWork(ctx, s.p, w); err != nil {
			errs = append(errs, err)
		}
		s.dropWork(w)
	}
	return errors.Join(errs...)
}

// applyWork writes one part's work when it is missing or differs from
// what it should be.
func (r *Reconciler) applyWork(ctx context.Context, s *scope, cluster string, part int, manifests []workv1.Manifest, current *workv1.ManifestWork) error {
	log := ctrl.LoggerFrom(ctx)
	if current == nil {
		w := s.desiredWork(cluster, part, manifests, nil, r.ManifestConfigs)
		err := r.Client.Create(ctx, w)
		switch {
		case err == nil:
			log.V(1).Info("Created a ManifestWork", "work", klog.KObj(w), "revision", s.delivered.number)
			s.works = append(s.works, *w)
			s.wroteWorks = true
			return nil
		case apierrors.IsNotFound(err):
			return fmt.Errorf("creating ManifestWork %s/%s: cluster namespace %s does not exist", cluster, w.Name, cluster)
		case !apierrors.IsAlreadyExists(err):
			return fmt.Errorf("creating ManifestWork %s/%s: %w", cluster, w.Name, err)
		}
		found := &workv1.ManifestWork{}
		if err := r.Client.Get(ctx, client.ObjectKeyFromObject(w), found); err != nil {
			return fmt.Errorf("reading ManifestWork %s/%s: %w", cluster, w.Name, err)
		}
		if !s.p.owns(found) {
			return fmt.Errorf("ManifestWork %s/%s exists and is not this propagation's (labels %v): left alone", cluster, w.Name, s.p.ownLabels())
		}
		current = found
	}
	w := s.desiredWork(cluster, part, manifests, current, r.ManifestConfigs)
	if same, err := sameWork(current, w); same || err != nil {
		return err
	}
	if err := r.Client.Update(ctx, w); err != nil {
		return fmt.Errorf("updating ManifestWork %s/%s: %w", cluster, w.Name, err)
	}
	log.V(1).Info("Updated a ManifestWork", "work", klog.KObj(w), "revision", s.delivered.number, "from", revisionOf(current))
	s.replaceWork(w)
	s.wroteWorks = true
	return nil
}

// desiredWork is the part's work on the cluster: current (when given,
// its worktrim.Writable copy) with the propagation's labels, the
// delivered revision's label, the adoption policy's annotation, the
// part's manifests (as the cluster receives them) with the update
// strategies the adoption gives them, and the delete option
// of the deletionPolicy; and the time it is given a revision it did not
// carry.
func (s *scope) desiredWork(cluster string, part int, manifests []workv1.Manifest, current *workv1.ManifestWork, configs func([]workv1.Manifest) []workv1.ManifestConfigOption) *workv1.ManifestWork {
	w := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: s.p.workName(part)}}
	if current != nil {
		w = worktrim.Writable(current)
	}
	if w.Labels == nil {
		w.Labels = map[string]string{}
	}
	for k, v := range s.p.ownLabels() {
		w.Labels[k] = v
	}
	revision := strconv.FormatInt(s.delivered.number, 10)
	if w.Annotations == nil {
		w.Annotations = map[string]string{}
	}
	if w.Labels[v1alpha1.LabelRevision] != revision || w.Annotations[RolloutTimeAnnotation] == "" {
		w.Annotations[RolloutTimeAnnotation] = s.now.UTC().Format(time.RFC3339)
	}
	w.Labels[v1alpha1.LabelRevision] = revision
	w.Spec.Workload.Manifests = manifests
	w.Spec.DeleteOption = s.p.deleteOption()
	w.Annotations[adoption.Annotation] = s.adoption.String()
	w.Spec.ManifestConfigs = nil
	if configs != nil {
		w.Spec.ManifestConfigs = configs(manifests)
	}
	w.Spec.ManifestConfigs = withStrategies(w.Spec.ManifestConfigs, s.strategies)
	return w
}

// sameWork says the work as it is (current, trimmed by worktrim or not)
// needs no write to be want: the same labels, annotations and spec, by
// its hash.
func sameWork(current, want *workv1.ManifestWork) (bool, error) {
	if !worktrim.SameMeta(current, want) {
		return false, nil
	}
	a, err := worktrim.SpecHash(current)
	if err != nil {
		return false, err
	}
	b, err := worktrim.HashSpec(&want.Spec)
	return a == b, err
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
