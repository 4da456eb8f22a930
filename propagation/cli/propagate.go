package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/confirm"
	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/internal/output"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// namedClusters is the CEL expression that selects exactly clusters by
// name: ManagedClusters carry no label with their name (OCM's hub sets
// none either), so a label selector cannot.
func namedClusters(clusters []string) string {
	quoted := make([]string, len(clusters))
	for i, c := range clusters {
		quoted[i] = "'" + c + "'" // a cluster name is a DNS label: nothing to escape
	}
	return "managedCluster.metadata.name in [" + strings.Join(quoted, ", ") + "]"
}

// PropagateOptions are the options of `corral propagate`.
type PropagateOptions struct {
	Out     io.Writer
	Hub     hubclient.Hub
	Confirm confirm.Options
	// Objects are the KIND/NAME arguments.
	Objects   []string
	Namespace string
	// Name is the propagation's; the first object's name when empty.
	Name      string
	Placement string
	// Clusters, instead of Placement, makes a Placement of exactly these.
	Clusters       []string
	Rollout        string
	DeletionPolicy string
	Output         string

	rollout clusterv1alpha1.RolloutStrategy
	// placement is what --clusters creates; obj the (Cluster)Propagation.
	placement *clusterv1beta1.Placement
	obj       client.Object
	target    ref
	// resolved are the objects, their kinds resolved, as build found them.
	resolved []resolved
}

// resolved is a KIND/NAME argument, its kind mapped by the hub.
type resolved struct {
	arg     string
	mapping *meta.RESTMapping
	name    string
}

// NewPropagateOptions returns the defaults: namespace default, objects
// deleted from the clusters with the propagation.
func NewPropagateOptions(out io.Writer) *PropagateOptions {
	return &PropagateOptions{Out: out, Hub: hubclient.New(), Confirm: confirm.NewOptions(), Namespace: "default",
		DeletionPolicy: string(v1alpha1.DeletionPolicyDelete), Rollout: string(clusterv1alpha1.All)}
}

// NewCmdPropagate returns `corral propagate`.
func NewCmdPropagate(out io.Writer) *cobra.Command {
	o := NewPropagateOptions(out)
	cmd := &cobra.Command{
		Use:   "propagate KIND/NAME... (--placement PLACEMENT | --clusters C1,C2) [-n NAMESPACE]",
		Short: "Deliver hub objects to clusters: create a Propagation of them",
		Long: `Create a Propagation in NAMESPACE that delivers the named hub objects of that
namespace to the clusters a Placement selects. KIND is any kind the hub
serves, as kubectl names it: deployment/web, deployments.apps/web,
configmap/cfg, a custom resource's plural. Cluster-scoped kinds make a
ClusterPropagation instead, following the Placement of NAMESPACE;
namespace/NAME brings the namespace with everything in it.

--placement names an existing Placement of NAMESPACE. --clusters instead
creates a Placement (named as the propagation) selecting exactly those
clusters, by name (a CEL selector); a cluster set must be bound to
NAMESPACE for it to select them ('corral clusterset bind').

The propagation is named after the first object unless --name says
otherwise; one of that name is refused. --rollout is All (the default),
Progressive[:N] (N clusters, or N%, at a time) or ProgressivePerGroup.
--deletion-policy Orphan leaves the objects on the clusters when the
propagation is deleted. -o yaml|json prints what it would create and
creates nothing (it still asks the hub what the kinds are); --dry-run
checks everything and creates nothing. Short names (deploy, cm) are not
resolved: spell the kind or its resource.
'corral propagation get NAME' shows where the objects went.`,
		Example: `  corral propagate deployment/web configmap/web-config -n shop --placement two-regions
  corral propagate deployments.apps/web -n shop --clusters cluster1,cluster2 --rollout Progressive:1
  corral propagate namespace/shop --placement everywhere -n fleet --deletion-policy Orphan
  corral propagate deployment/web -n shop --clusters cluster1 -o yaml > web-propagation.yaml`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Objects = args
			return hubclient.Run(cmd.Context(), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the hub's flags and the propagation's.
func (o *PropagateOptions) AddFlags(fs *pflag.FlagSet) {
	o.Hub.AddFlags(fs)
	o.Confirm.AddDryRunFlag(fs)
	addNamespaceFlag(fs, &o.Namespace, "namespace of the objects, the propagation and its placement")
	fs.StringVar(&o.Name, "name", o.Name, "name of the propagation (default: the first object's name)")
	fs.StringVar(&o.Placement, "placement", o.Placement, "the Placement of the namespace whose clusters get the objects")
	hubclient.AddClustersFlag(fs, &o.Clusters, "instead of --placement, create a Placement of exactly these clusters")
	fs.StringVar(&o.Rollout, "rollout", o.Rollout, "how to roll out: All, Progressive[:N or N%], ProgressivePerGroup")
	fs.StringVar(&o.DeletionPolicy, "deletion-policy", o.DeletionPolicy, "when the propagation is deleted: Delete the objects from the clusters, or Orphan them there")
	output.AddFlag(fs, &o.Output)
}

// Validate checks the flags, each problem in one line.
func (o *PropagateOptions) Validate() error {
	if errs := validation.IsDNS1123Label(o.Namespace); len(errs) > 0 {
		return fmt.Errorf("namespace %q is not valid: %s", o.Namespace, errs[0])
	}
	switch {
	case o.Placement == "" && len(o.Clusters) == 0:
		return errors.New("say where the objects go: --placement PLACEMENT (corral placement get lists them), or --clusters C1,C2")
	case o.Placement != "" && len(o.Clusters) > 0:
		return fmt.Errorf("give --placement %s or --clusters, not both", o.Placement)
	}
	for _, c := range o.Clusters {
		if errs := validation.IsDNS1123Label(c); len(errs) > 0 {
			return fmt.Errorf("--clusters: %q is not a cluster name: %s", c, errs[0])
		}
	}
	for _, arg := range o.Objects {
		if kind, name, ok := strings.Cut(arg, "/"); !ok || kind == "" || name == "" || strings.Contains(name, "/") {
			return fmt.Errorf("%q: name each object as KIND/NAME, e.g. deployment/web or deployments.apps/web", arg)
		}
	}
	if o.Name == "" {
		_, o.Name, _ = strings.Cut(o.Objects[0], "/")
	}
	if err := validName(o.Name); err != nil {
		return fmt.Errorf("%w; choose another with --name", err)
	}
	switch v1alpha1.DeletionPolicy(o.DeletionPolicy) {
	case v1alpha1.DeletionPolicyDelete, v1alpha1.DeletionPolicyOrphan:
	default:
		return fmt.Errorf("--deletion-policy %q: give Delete (remove the objects from the clusters with the propagation) or Orphan (leave them)", o.DeletionPolicy)
	}
	var err error
	if o.rollout, err = parseRollout(o.Rollout); err != nil {
		return err
	}
	return output.Validate(o.Output)
}

// parseRollout reads --rollout: All, Progressive[:N|N%], ProgressivePerGroup.
func parseRollout(s string) (clusterv1alpha1.RolloutStrategy, error) {
	kind, n, hasN := strings.Cut(s, ":")
	switch {
	case strings.EqualFold(kind, string(clusterv1alpha1.All)) && !hasN:
		return clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All}, nil
	case strings.EqualFold(kind, string(clusterv1alpha1.ProgressivePerGroup)) && !hasN:
		return clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.ProgressivePerGroup}, nil
	case strings.EqualFold(kind, string(clusterv1alpha1.Progressive)):
		r := clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.Progressive, Progressive: &clusterv1alpha1.RolloutProgressive{}}
		if hasN {
			v := intstr.Parse(n)
			if _, err := intstr.GetScaledValueFromIntOrPercent(&v, 100, true); err != nil || n == "" || strings.HasPrefix(n, "-") || v.Type == intstr.Int && v.IntVal < 1 {
				return r, fmt.Errorf("--rollout %q: after Progressive: give how many clusters at a time, a number from 1 or a percentage, e.g. Progressive:1 or Progressive:25%%", s)
			}
			r.Progressive.MaxConcurrency = v
		}
		return r, nil
	}
	return clusterv1alpha1.RolloutStrategy{}, fmt.Errorf("--rollout %q: give All, Progressive[:N] (N clusters or N%% at a time) or ProgressivePerGroup", s)
}

// Complete builds the hub client.
func (o *PropagateOptions) Complete() error { return o.Hub.Complete() }

// Run resolves the kinds, checks the hub, and creates the placement (with
// --clusters) and the propagation.
func (o *PropagateOptions) Run(ctx context.Context) error {
	if err := o.build(); err != nil {
		return err
	}
	if o.Output != "" {
		return o.print()
	}
	notes, err := o.check(ctx)
	if err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintln(o.Out, n)
	}
	e := confirm.Effect{Verb: "create " + o.target.String()}
	if o.placement != nil {
		e.Changes = append(e.Changes, fmt.Sprintf("placement %s/%s: created, selecting clusters %s", o.Namespace, o.Name, strings.Join(o.Clusters, ", ")))
	}
	e.Changes = append(e.Changes, fmt.Sprintf("%s: created, delivering %s", o.target, strings.Join(o.Objects, ", ")))
	if ok, err := o.Confirm.Ask(o.Out, e); err != nil || !ok {
		return err
	}
	if o.placement != nil {
		if err := o.Hub.Client.Create(ctx, o.placement.DeepCopy()); err != nil {
			return fmt.Errorf("creating placement %s/%s: %w; nothing was created", o.Namespace, o.Name, err)
		}
	}
	if err := o.Hub.Client.Create(ctx, o.obj.DeepCopyObject().(client.Object)); err != nil {
		if o.placement != nil {
			// Nothing half-created: take back the placement made for it.
			_ = o.Hub.Client.Delete(ctx, o.placement.DeepCopy())
		}
		return fmt.Errorf("creating %s: %w; nothing was created", o.target, err)
	}
	if o.placement != nil {
		fmt.Fprintf(o.Out, "placement %s/%s created\n", o.Namespace, o.Name)
	}
	fmt.Fprintf(o.Out, "%s created: see where it goes with corral propagation get %s\n", o.target, o.target.arg())
	return nil
}

// build resolves the objects' kinds through the hub's RESTMapper and
// builds the (Cluster)Propagation and, with --clusters, the Placement.
func (o *PropagateOptions) build() error {
	mapper := o.Hub.Client.RESTMapper()
	var namespaced, cluster []v1alpha1.ClusterResourceSelector
	var nsArgs, clusterArgs []string
	o.resolved = nil
	for _, arg := range o.Objects {
		m, name, err := resolve(mapper, arg)
		if err != nil {
			return err
		}
		o.resolved = append(o.resolved, resolved{arg: arg, mapping: m, name: name})
		gvk := m.GroupVersionKind
		sel := v1alpha1.ClusterResourceSelector{ResourceSelector: v1alpha1.ResourceSelector{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, Name: name}}
		if m.Scope.Name() == meta.RESTScopeNameNamespace {
			namespaced, nsArgs = append(namespaced, sel), append(nsArgs, arg)
			continue
		}
		if gvk.Group == "" && gvk.Kind == "Namespace" {
			sel.SelectionScope = v1alpha1.NamespaceWithResources
		}
		cluster, clusterArgs = append(cluster, sel), append(clusterArgs, arg)
	}
	if len(namespaced) > 0 && len(cluster) > 0 {
		return fmt.Errorf("%s namespaced and %s cluster-scoped: propagate them with two commands (or namespace/%s, which brings its contents); nothing was created",
			strings.Join(nsArgs, ", "), strings.Join(clusterArgs, ", "), o.Namespace)
	}
	policy := v1alpha1.PropagationPolicy{DeletionPolicy: v1alpha1.DeletionPolicy(o.DeletionPolicy)}
	placementName := o.Placement
	if len(o.Clusters) > 0 {
		placementName = o.Name
		o.placement = o.clustersPlacement()
	}
	local := v1alpha1.LocalPlacementReference{Name: placementName, RolloutStrategy: o.rollout}
	if len(cluster) > 0 {
		o.target = ref{Cluster: true, Name: o.Name}
		o.obj = &v1alpha1.ClusterPropagation{
			TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: "ClusterPropagation"},
			ObjectMeta: metav1.ObjectMeta{Name: o.Name},
			Spec: v1alpha1.ClusterPropagationSpec{ResourceSelectors: cluster,
				PlacementRefs:     []v1alpha1.PlacementReference{{Namespace: o.Namespace, LocalPlacementReference: local}},
				PropagationPolicy: policy},
		}
		return nil
	}
	sels := make([]v1alpha1.ResourceSelector, len(namespaced))
	for i, s := range namespaced {
		sels[i] = s.ResourceSelector
	}
	o.target = ref{Namespace: o.Namespace, Name: o.Name}
	o.obj = &v1alpha1.Propagation{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: "Propagation"},
		ObjectMeta: metav1.ObjectMeta{Namespace: o.Namespace, Name: o.Name},
		Spec: v1alpha1.PropagationSpec{ResourceSelectors: sels,
			PlacementRefs: []v1alpha1.LocalPlacementReference{local}, PropagationPolicy: policy},
	}
	return nil
}

// clustersPlacement is the Placement --clusters makes: exactly those
// clusters, by name (a CEL selector).
func (o *PropagateOptions) clustersPlacement() *clusterv1beta1.Placement {
	clusters := o.clusterNames()
	n := int32(len(clusters))
	return &clusterv1beta1.Placement{
		TypeMeta:   metav1.TypeMeta{APIVersion: clusterv1beta1.GroupVersion.String(), Kind: "Placement"},
		ObjectMeta: metav1.ObjectMeta{Namespace: o.Namespace, Name: o.Name},
		Spec: clusterv1beta1.PlacementSpec{NumberOfClusters: &n, Predicates: []clusterv1beta1.ClusterPredicate{{
			RequiredClusterSelector: clusterv1beta1.ClusterSelector{CelSelector: clusterv1beta1.ClusterCelSelector{
				CelExpressions: []string{namedClusters(clusters)}}}}}},
	}
}

// clusterNames are the clusters of --clusters, sorted, each once.
func (o *PropagateOptions) clusterNames() []string {
	clusters := slices.Clone(o.Clusters)
	slices.Sort(clusters)
	return slices.Compact(clusters)
}

// resolve maps KIND/NAME through the hub's RESTMapper, as kubectl reads a
// resource argument: resource, resource.group or resource.version.group,
// singular or plural.
func resolve(mapper meta.RESTMapper, arg string) (*meta.RESTMapping, string, error) {
	kind, name, _ := strings.Cut(arg, "/")
	fullySpecified, gr := schema.ParseResourceArg(strings.ToLower(kind))
	var gvk schema.GroupVersionKind
	var err error
	if fullySpecified != nil {
		gvk, err = mapper.KindFor(*fullySpecified)
	}
	if fullySpecified == nil || err != nil {
		gvk, err = mapper.KindFor(gr.WithVersion(""))
	}
	if err != nil {
		if meta.IsNoMatchError(err) {
			return nil, "", fmt.Errorf("the hub serves no kind %q (in %s): check the spelling, or install its CRD first (kubectl api-resources lists the kinds); nothing was created", kind, arg)
		}
		return nil, "", fmt.Errorf("resolving the kind of %s: %w", arg, err)
	}
	m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, "", fmt.Errorf("resolving the kind of %s: %w", arg, err)
	}
	return m, name, nil
}

// print writes what Run would create, as -o asks: without status, a
// file to keep and apply; several objects as YAML documents, or as a v1
// List in JSON.
func (o *PropagateOptions) print() error {
	var objs []any
	for _, obj := range []any{o.placement, o.obj} {
		if p, ok := obj.(*clusterv1beta1.Placement); ok && p == nil {
			continue
		}
		m, err := withoutStatus(obj)
		if err != nil {
			return err
		}
		objs = append(objs, m)
	}
	if o.Output == "json" {
		if len(objs) == 1 {
			return output.Print(o.Out, "json", objs[0], nil)
		}
		return output.Print(o.Out, "json", map[string]any{"apiVersion": "v1", "kind": "List", "items": objs}, nil)
	}
	for i, obj := range objs {
		if i > 0 {
			fmt.Fprintln(o.Out, "---")
		}
		if err := output.Print(o.Out, "yaml", obj, nil); err != nil {
			return err
		}
	}
	return nil
}

// withoutStatus is obj as a map, without its status.
func withoutStatus(obj any) (map[string]any, error) {
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	m := map[string]any{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	delete(m, "status")
	return m, nil
}

// check refuses, in one line, what would make the propagation wrong from
// the start: a propagation or --clusters placement of that name already
// there, a named object, placement or cluster missing, no cluster set
// bound for --clusters. What the user may not read is a note.
func (o *PropagateOptions) check(ctx context.Context) (notes []string, err error) {
	c := o.Hub.Client
	exists := o.obj.DeepCopyObject().(client.Object)
	switch err := c.Get(ctx, client.ObjectKeyFromObject(o.obj), exists); {
	case err == nil:
		return nil, fmt.Errorf("%s already exists: see it with corral propagation get %s, or choose another --name; nothing was created", o.target, o.target.arg())
	case !apierrors.IsNotFound(err):
		return nil, fmt.Errorf("reading %s: %w", o.target, err)
	}
	for _, r := range o.resolved {
		note, err := o.checkObject(ctx, r)
		if err != nil {
			return nil, err
		}
		if note != "" {
			notes = append(notes, note)
		}
	}
	if o.placement == nil {
		switch err := c.Get(ctx, client.ObjectKey{Namespace: o.Namespace, Name: o.Placement}, &clusterv1beta1.Placement{}); {
		case apierrors.IsNotFound(err):
			return nil, fmt.Errorf("no placement %s in namespace %s: create it with corral placement create %s -n %s, or give --clusters C1,C2 instead; nothing was created",
				o.Placement, o.Namespace, o.Placement, o.Namespace)
		case apierrors.IsForbidden(err):
			notes = append(notes, fmt.Sprintf("note: not checked that placement %s/%s exists: you may not read placements there", o.Namespace, o.Placement))
		case err != nil:
			return nil, fmt.Errorf("reading placement %s/%s: %w", o.Namespace, o.Placement, err)
		}
		return notes, nil
	}
	more, err := o.checkClusters(ctx)
	return append(notes, more...), err
}

// checkObject refuses a named object the hub does not hold.
func (o *PropagateOptions) checkObject(ctx context.Context, r resolved) (string, error) {
	m, name := r.mapping, r.name
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(m.GroupVersionKind)
	key := client.ObjectKey{Name: name}
	where := name
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		key.Namespace, where = o.Namespace, o.Namespace+"/"+name
	}
	switch err := o.Hub.Client.Get(ctx, key, u); {
	case apierrors.IsNotFound(err):
		return "", fmt.Errorf("%s %s is not on the hub: create it there first (kubectl apply), then propagate it; nothing was created", strings.ToLower(m.GroupVersionKind.Kind), where)
	case apierrors.IsForbidden(err):
		return fmt.Sprintf("note: not checked that %s %s exists: you may not read it", strings.ToLower(m.GroupVersionKind.Kind), where), nil
	case err != nil:
		return "", fmt.Errorf("reading %s %s: %w", strings.ToLower(m.GroupVersionKind.Kind), where, err)
	}
	return "", nil
}

// checkClusters refuses --clusters when its placement's name is taken,
// when a cluster is not the hub's, or when no cluster set is bound to the
// namespace (the placement would select nothing).
func (o *PropagateOptions) checkClusters(ctx context.Context) (notes []string, err error) {
	c := o.Hub.Client
	switch err := c.Get(ctx, client.ObjectKeyFromObject(o.placement), &clusterv1beta1.Placement{}); {
	case err == nil:
		return nil, fmt.Errorf("placement %s/%s already exists: use it with --placement %s instead of --clusters, or choose another --name; nothing was created",
			o.Namespace, o.Name, o.Name)
	case !apierrors.IsNotFound(err):
		return nil, fmt.Errorf("reading placement %s/%s: %w", o.Namespace, o.Name, err)
	}
	var missing []string
	for _, name := range o.clusterNames() {
		switch err := c.Get(ctx, client.ObjectKey{Name: name}, &clusterv1.ManagedCluster{}); {
		case apierrors.IsNotFound(err):
			missing = append(missing, name)
		case apierrors.IsForbidden(err):
			return []string{"note: not checked that the clusters exist: you may not read managedclusters"}, o.checkBound(ctx)
		case err != nil:
			return nil, fmt.Errorf("reading cluster %s: %w", name, err)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("no cluster %s on this hub: corral get clusters lists them; nothing was created", strings.Join(missing, ", "))
	}
	return nil, o.checkBound(ctx)
}

// checkBound refuses a namespace no cluster set is bound to.
func (o *PropagateOptions) checkBound(ctx context.Context) error {
	bindings := &clusterv1beta2.ManagedClusterSetBindingList{}
	if err := o.Hub.Client.List(ctx, bindings, client.InNamespace(o.Namespace)); err != nil {
		return fmt.Errorf("listing the cluster set bindings of namespace %s: %w", o.Namespace, err)
	}
	if len(bindings.Items) == 0 {
		return fmt.Errorf("no cluster set is bound to namespace %[1]s, so a placement there selects no cluster: bind one with corral clusterset bind SET -n %[1]s; nothing was created", o.Namespace)
	}
	return nil
}
