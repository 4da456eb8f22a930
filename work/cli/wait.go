package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/output"
	"github.com/corral-dev/corral/work/hub/replicaset"
)

// waitState is, per cluster, why its work is not applied, available and
// ready yet; none when it is.
type waitState struct {
	clusters []string
	notReady map[string]string
}

func (s waitState) done() bool { return len(s.notReady) == 0 }

func (s waitState) ready() int { return len(s.clusters) - len(s.notReady) }

func (s waitState) reasons() string {
	var parts []string
	for _, c := range s.clusters {
		if why, ok := s.notReady[c]; ok {
			parts = append(parts, c+": "+why)
		}
	}
	return strings.Join(parts, "; ")
}

// wait waits until the works are applied, available and ready on every
// cluster, or --timeout passes; it prints the summary, and returns an
// error saying what is not ready otherwise. Progress goes to ErrOut when
// that is a terminal.
func (o *CreateOptions) wait(ctx context.Context) error {
	var state waitState
	last := ""
	err := wait.PollUntilContextTimeout(ctx, o.pollInterval, o.Timeout, true, func(ctx context.Context) (bool, error) {
		var err error
		if state, err = o.survey(ctx); err != nil {
			return false, err
		}
		if line := fmt.Sprintf("waiting: ready on %d of %d clusters; %s", state.ready(), len(state.clusters), state.reasons()); o.Progress && line != last && !state.done() {
			fmt.Fprintln(o.ErrOut, line)
			last = line
		}
		return state.done(), nil
	})
	switch {
	case err == nil && len(state.clusters) == 0:
		fmt.Fprintf(o.Out, "placement %s selects no cluster: nothing to wait for\n", o.Placement)
		return nil
	case err == nil:
		fmt.Fprintf(o.Out, "applied, available and ready on %d of %d clusters\n", state.ready(), len(state.clusters))
		return nil
	case !wait.Interrupted(err):
		return err
	}
	return fmt.Errorf("not ready within %s: applied, available and ready on %d of %d clusters; %s (corral work get %s shows more)",
		o.Timeout, state.ready(), len(state.clusters), state.reasons(), o.Name)
}

// survey reads the works and says which are not ready yet.
func (o *CreateOptions) survey(ctx context.Context) (waitState, error) {
	clusters, hash := o.Clusters, ""
	works := map[string]*workv1.ManifestWork{}
	if o.Placement != "" {
		set := &workv1alpha1.ManifestWorkReplicaSet{}
		if err := o.Hub.Client.Get(ctx, client.ObjectKey{Namespace: o.Namespace, Name: o.Name}, set); err != nil {
			return waitState{}, fmt.Errorf("reading ManifestWorkReplicaSet %s/%s: %w", o.Namespace, o.Name, err)
		}
		var err error
		if hash, err = replicaset.TemplateHash(set); err != nil {
			return waitState{}, err
		}
		if clusters, err = decidedClusters(ctx, o.Hub.Client, o.Namespace, o.Placement); err != nil {
			return waitState{}, err
		}
		list := &workv1.ManifestWorkList{}
		err = o.Hub.Client.List(ctx, list, o.setsWorks())
		if apierrors.IsForbidden(err) {
			return waitState{}, o.cannotWait()
		}
		if err != nil {
			return waitState{}, fmt.Errorf("listing the works of ManifestWorkReplicaSet %s/%s: %w", o.Namespace, o.Name, err)
		}
		for i := range list.Items {
			works[list.Items[i].Namespace] = &list.Items[i]
		}
	} else {
		for _, c := range clusters {
			w := &workv1.ManifestWork{}
			if err := o.Hub.Client.Get(ctx, client.ObjectKey{Namespace: c, Name: o.Name}, w); err == nil {
				works[c] = w
			} else if !apierrors.IsNotFound(err) {
				return waitState{}, fmt.Errorf("reading ManifestWork %s/%s: %w", c, o.Name, err)
			}
		}
	}
	state := waitState{clusters: clusters, notReady: map[string]string{}}
	for _, c := range clusters {
		if why := notReady(works[c], hash); why != "" {
			state.notReady[c] = why
		}
	}
	return state, nil
}

// notReady says why w is not applied, available and ready, with the
// template of hash when that is given; "" when it is.
func notReady(w *workv1.ManifestWork, hash string) string {
	switch {
	case w == nil:
		return "no work yet"
	case hash != "" && w.Annotations[replicaset.TemplateHashAnnotation] != hash:
		return "still has the set's previous objects (rolling out)"
	case !w.DeletionTimestamp.IsZero():
		return "being deleted"
	}
	for _, t := range []string{workv1.WorkApplied, workv1.WorkAvailable} {
		c := meta.FindStatusCondition(w.Status.Conditions, t)
		switch {
		case c == nil:
			return "not " + strings.ToLower(t) + " yet"
		case c.ObservedGeneration < w.Generation:
			return "its agent has not seen the change yet"
		case c.Status != "True" && c.Message != "":
			return "not " + strings.ToLower(t) + ": " + c.Message
		case c.Status != "True":
			return "not " + strings.ToLower(t) + " (" + c.Reason + ")"
		}
	}
	for _, m := range w.Spec.Workload.Manifests {
		u := object(m)
		if !isWorkload(u) {
			continue
		}
		if why := workloadNotReady(u, feedbackOf(w, u)); why != "" {
			return resourceName(workv1.ManifestResourceMeta{Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName()}) + ": " + why
		}
	}
	return ""
}

// feedbackOf is the status feedback w's agent reported of u, by name.
func feedbackOf(w *workv1.ManifestWork, u *unstructured.Unstructured) map[string]workv1.FieldValue {
	i := slices.IndexFunc(w.Status.ResourceStatus.Manifests, func(m workv1.ManifestCondition) bool {
		r := m.ResourceMeta
		return r.Kind == u.GetKind() && r.Name == u.GetName() && r.Namespace == u.GetNamespace()
	})
	if i < 0 {
		return nil
	}
	values := map[string]workv1.FieldValue{}
	for _, v := range w.Status.ResourceStatus.Manifests[i].StatusFeedbacks.Values {
		values[strings.ToLower(v.Name)] = v.Value
	}
	return values
}

// workloadNotReady says why the workload u is not ready, from its status
// feedback; "" when it is. Replicas are counted against the manifest's:
// the fed-back ones lag a change.
func workloadNotReady(u *unstructured.Unstructured, fb map[string]workv1.FieldValue) string {
	if len(fb) == 0 {
		return "no status feedback yet (it needs WellKnownStatus feedback: --feedback)"
	}
	integer := func(name string) (int64, bool) {
		v, ok := fb[strings.ToLower(name)]
		if !ok || v.Integer == nil {
			return 0, false
		}
		return *v.Integer, true
	}
	str := func(name string) string {
		if v, ok := fb[strings.ToLower(name)]; ok && v.String != nil {
			return *v.String
		}
		return ""
	}
	switch u.GetKind() {
	case "Deployment", "StatefulSet":
		want, found, _ := unstructured.NestedInt64(u.Object, "spec", "replicas")
		if !found {
			want = 1
		}
		if ready, _ := integer("ReadyReplicas"); ready < want {
			return fmt.Sprintf("%d of %d replicas ready", ready, want)
		}
	case "DaemonSet":
		ready, _ := integer("NumberReady")
		desired, ok := integer("DesiredNumberScheduled")
		if !ok || ready != desired {
			return fmt.Sprintf("%d of %d pods ready", ready, desired)
		}
	case "Job":
		if succeeded, _ := integer("JobSucceeded"); str("JobComplete") != "True" && succeeded == 0 {
			return "not complete yet"
		}
	case "Pod":
		if str("PodReady") != "True" && str("PodPhase") != "Succeeded" {
			return fmt.Sprintf("not ready (phase %s)", output.OrDash(str("PodPhase")))
		}
	}
	return ""
}

// setsWorks selects the works of the set o delivers.
func (o *CreateOptions) setsWorks() client.MatchingLabels {
	return client.MatchingLabels{workv1alpha1.ManifestWorkReplicaSetControllerNameLabelKey: o.Namespace + "." + o.Name}
}

// checkCanWait refuses --wait on a placement, before anything is written,
// for a user who may not list the set's works: the wait reads them.
func (o *CreateOptions) checkCanWait(ctx context.Context) error {
	if !o.Wait || o.Placement == "" {
		return nil
	}
	err := o.Hub.Client.List(ctx, &workv1.ManifestWorkList{}, o.setsWorks(), client.Limit(1))
	if apierrors.IsForbidden(err) {
		return fmt.Errorf("%w; %s", o.cannotWait(), o.nothing())
	}
	return nil
}

// cannotWait says why --wait cannot follow a set, and what to do.
func (o *CreateOptions) cannotWait() error {
	return fmt.Errorf("--wait reads the set's works in the clusters' namespaces, and you may not list them (see docs/teams.md): "+
		"leave out --wait and follow the set with 'corral work get %s -n %s -w'", o.Name, o.Namespace)
}
