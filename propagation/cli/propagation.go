package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// NewCmdPropagation returns `corral propagation` and its verbs.
func NewCmdPropagation(out io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "propagation",
		Short: "Show propagations, their revisions; roll back, delete",
		Long: `Show the Propagations (and ClusterPropagations) that deliver hub objects to
clusters, their revisions, roll one back to an earlier revision, or delete
one. 'corral propagate' creates them. A ClusterPropagation is named
clusterpropagation/NAME (or cprop/NAME); a bare NAME is a Propagation of -n.`,
	}
	cmd.AddCommand(NewCmdGet(out), NewCmdHistory(out), NewCmdRollback(out), NewCmdDelete(out))
	return cmd
}

// addNamespaceFlag registers -n/--namespace.
func addNamespaceFlag(fs *pflag.FlagSet, ns *string, usage string) {
	fs.StringVarP(ns, "namespace", "n", *ns, usage)
}

// ref names a Propagation (Namespace set) or a ClusterPropagation.
type ref struct {
	Cluster   bool
	Namespace string
	Name      string
}

// parseRef reads NAME, propagation/NAME or prop/NAME as a Propagation of
// namespace, and clusterpropagation/NAME or cprop/NAME as a
// ClusterPropagation.
func parseRef(arg, namespace string) (ref, error) {
	kind, name, ok := strings.Cut(arg, "/")
	if !ok {
		kind, name = "propagation", arg
	}
	r := ref{Name: name}
	switch strings.ToLower(kind) {
	case "propagation", "propagations", "prop", "propagation.apps.corral.dev":
		r.Namespace = namespace
		if errs := validation.IsDNS1123Label(namespace); len(errs) > 0 {
			return r, fmt.Errorf("namespace %q is not valid: %s", namespace, errs[0])
		}
	case "clusterpropagation", "clusterpropagations", "cprop", "clusterpropagation.apps.corral.dev":
		r.Cluster = true
	default:
		return r, fmt.Errorf("%q: give a propagation's NAME, or clusterpropagation/NAME for a ClusterPropagation", arg)
	}
	if err := validName(name); err != nil {
		return r, err
	}
	return r, nil
}

// validName checks a (Cluster)Propagation's name: a DNS subdomain that is
// also a label value, as the revisions' and works' labels carry it.
func validName(name string) error {
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return fmt.Errorf("propagation name %q is not valid: %s", name, errs[0])
	}
	if errs := validation.IsValidLabelValue(name); len(errs) > 0 {
		return fmt.Errorf("propagation name %q is not valid: %s (it is the value of the %s label)", name, errs[0], v1alpha1.LabelPropagation)
	}
	return nil
}

// String is "propagation NS/NAME" or "clusterpropagation NAME".
func (r ref) String() string {
	if r.Cluster {
		return "clusterpropagation " + r.Name
	}
	return "propagation " + r.Namespace + "/" + r.Name
}

// arg is how the verbs take r back: "NAME -n NS" or "cprop/NAME".
func (r ref) arg() string {
	if r.Cluster {
		return "cprop/" + r.Name
	}
	return r.Name + " -n " + r.Namespace
}

// prop is a Propagation or a ClusterPropagation, read through what they
// share.
type prop struct {
	Obj    client.Object
	Policy *v1alpha1.PropagationPolicy
	Status *v1alpha1.PropagationStatus
	// Placements are the placementRefs, as NS/NAME.
	Placements []string
}

func wrap(p *v1alpha1.Propagation) prop {
	out := prop{Obj: p, Policy: &p.Spec.PropagationPolicy, Status: &p.Status}
	for _, r := range p.Spec.PlacementRefs {
		out.Placements = append(out.Placements, p.Namespace+"/"+r.Name)
	}
	return out
}

func wrapCluster(p *v1alpha1.ClusterPropagation) prop {
	out := prop{Obj: p, Policy: &p.Spec.PropagationPolicy, Status: &p.Status}
	for _, r := range p.Spec.PlacementRefs {
		out.Placements = append(out.Placements, r.Namespace+"/"+r.Name)
	}
	return out
}

// get reads r, saying in one line how to find it when it is not there.
func (r ref) get(ctx context.Context, c client.Client) (prop, error) {
	var obj client.Object = &v1alpha1.Propagation{}
	if r.Cluster {
		obj = &v1alpha1.ClusterPropagation{}
	}
	err := c.Get(ctx, client.ObjectKey{Namespace: r.Namespace, Name: r.Name}, obj)
	switch {
	case apierrors.IsNotFound(err) && r.Cluster:
		return prop{}, fmt.Errorf("no clusterpropagation %s: corral propagation get -A lists them", r.Name)
	case apierrors.IsNotFound(err):
		return prop{}, fmt.Errorf("no propagation %s in namespace %s: corral propagation get -n %s lists them", r.Name, r.Namespace, r.Namespace)
	case err != nil:
		return prop{}, fmt.Errorf("reading %s: %w", r, err)
	}
	if p, ok := obj.(*v1alpha1.Propagation); ok {
		return wrap(p), nil
	}
	return wrapCluster(obj.(*v1alpha1.ClusterPropagation)), nil
}

// revision is a (Cluster)PropagationRevision, read through what they
// share.
type revision struct {
	Obj     client.Object
	Spec    v1alpha1.RevisionSpec
	Created metav1.Time
}

// revisions lists r's revisions, oldest first.
func (r ref) revisions(ctx context.Context, c client.Client) ([]revision, error) {
	labels := client.MatchingLabels{v1alpha1.LabelPropagation: r.Name}
	var out []revision
	if r.Cluster {
		list := &v1alpha1.ClusterPropagationRevisionList{}
		if err := c.List(ctx, list, labels); err != nil {
			return nil, fmt.Errorf("listing the revisions of %s: %w", r, err)
		}
		for i := range list.Items {
			rev := &list.Items[i]
			out = append(out, revision{Obj: rev, Spec: rev.Spec, Created: rev.CreationTimestamp})
		}
	} else {
		list := &v1alpha1.PropagationRevisionList{}
		if err := c.List(ctx, list, labels, client.InNamespace(r.Namespace)); err != nil {
			return nil, fmt.Errorf("listing the revisions of %s: %w", r, err)
		}
		for i := range list.Items {
			rev := &list.Items[i]
			out = append(out, revision{Obj: rev, Spec: rev.Spec, Created: rev.CreationTimestamp})
		}
	}
	slices.SortFunc(out, func(a, b revision) int { return int(a.Spec.Revision - b.Spec.Revision) })
	return out, nil
}

// numbers are the revisions' numbers, for a sentence.
func numbers(revs []revision) string {
	if len(revs) == 0 {
		return "none yet"
	}
	s := make([]string, len(revs))
	for i, r := range revs {
		s[i] = fmt.Sprint(r.Spec.Revision)
	}
	return strings.Join(s, ", ")
}

// find is revision n of revs, or nil.
func find(revs []revision, n int64) *revision {
	for i := range revs {
		if revs[i].Spec.Revision == n {
			return &revs[i]
		}
	}
	return nil
}

// objectNames names a revision's objects, "deployment shop/web", in
// delivery order; an object that does not decode is "an undecodable
// object".
func objectNames(objects []workv1.Manifest) []string {
	out := make([]string, 0, len(objects))
	for _, m := range objects {
		var o struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Namespace string `json:"namespace"`
				Name      string `json:"name"`
			} `json:"metadata"`
		}
		raw := m.Raw
		if raw == nil && m.Object != nil {
			raw, _ = json.Marshal(m.Object)
		}
		if err := json.Unmarshal(raw, &o); err != nil || o.Kind == "" {
			out = append(out, "an undecodable object")
			continue
		}
		name := o.Metadata.Name
		if o.Metadata.Namespace != "" {
			name = o.Metadata.Namespace + "/" + name
		}
		out = append(out, strings.ToLower(o.Kind)+" "+name)
	}
	return out
}

// clustersOf are the clusters p's status lists, sorted.
func clustersOf(p prop) []string {
	out := make([]string, 0, len(p.Status.Clusters))
	for _, c := range p.Status.Clusters {
		out = append(out, c.Cluster)
	}
	slices.Sort(out)
	return out
}

// list is names for a sentence: the first most and how many more.
func list(names []string, most int) string {
	if len(names) <= most {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s, +%d more", strings.Join(names[:most], ", "), len(names)-most)
}

// count is "1 cluster", "2 clusters".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
