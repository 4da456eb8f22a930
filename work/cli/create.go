package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/registration/common"
)

// CreateOptions are the options of `corral work create`.
type CreateOptions struct {
	Out       io.Writer
	Hub       hubclient.Hub
	Name      string
	File      string
	Clusters  []string
	Placement string
	Namespace string
	// In is read for -f -.
	In io.Reader
	// Apply updates the objects of works (or a set) already there, instead
	// of refusing them: `corral work apply`.
	Apply bool

	manifests []workv1.Manifest
}

// NewCreateOptions returns the defaults: the default namespace for a
// placement.
func NewCreateOptions(out io.Writer) *CreateOptions {
	return &CreateOptions{Out: out, Hub: hubclient.New(), Namespace: "default", In: os.Stdin}
}

// NewCmdCreate returns `corral work create`.
func NewCmdCreate(out io.Writer) *cobra.Command {
	return newCmdDeliver(NewCreateOptions(out), &cobra.Command{
		Use:   "create NAME -f FILE (--clusters C1,C2 | --placement P [-n NAMESPACE])",
		Short: "Deliver the objects of a file to clusters: a ManifestWork per cluster, or a ManifestWorkReplicaSet on a placement",
		Long: `Deliver the Kubernetes objects of a YAML or JSON file (several documents, or
kind List) to clusters.

With --clusters, a ManifestWork NAME is created in each cluster's namespace;
every cluster must be accepted by the hub, and none may have a ManifestWork
NAME already (change its objects with 'corral work apply'). With --placement,
a ManifestWorkReplicaSet NAME is created in the placement's namespace (-n):
the hub makes a ManifestWork for every cluster the placement selects, now
and as its decisions change, rolling out all at once.

Everything is checked first (the file, the clusters or the placement, the
names): when a check fails nothing is created.`,
		Example: `  corral work create web -f web.yaml --clusters cluster1,cluster2
  corral work create web -f web.yaml --placement prod -n apps
  kubectl create deployment web --image=nginx --dry-run=client -o yaml | corral work create web -f - --clusters cluster1`,
	})
}

// NewCmdApply returns `corral work apply`.
func NewCmdApply(out io.Writer) *cobra.Command {
	o := NewCreateOptions(out)
	o.Apply = true
	return newCmdDeliver(o, &cobra.Command{
		Use:   "apply NAME -f FILE (--clusters C1,C2 | --placement P [-n NAMESPACE])",
		Short: "Deliver the objects of a file to clusters, creating the works or changing the objects of those already there",
		Long: `Like 'corral work create', but a ManifestWork NAME already on a cluster (or a
ManifestWorkReplicaSet NAME on the placement) gets the file's objects in
place of its own, and keeps the rest of its spec (delete option, manifest
configs, executor). The work addon's agent updates the objects on the
cluster in place, and removes from it those the file no longer has.
Deleting and creating the work instead would remove every object first.

A ManifestWorkReplicaSet NAME must already be on the placement given;
everything is checked first, and when a check fails nothing is written.`,
		Example: `  corral work apply web -f web.yaml --clusters cluster1,cluster2
  corral work apply web -f web-v2.yaml --placement prod -n apps`,
	})
}

// newCmdDeliver wires o to cmd: the arguments, flags and run of create and
// apply.
func newCmdDeliver(o *CreateOptions, cmd *cobra.Command) *cobra.Command {
	cmd.Args = cobra.ExactArgs(1)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		o.Name = args[0]
		return hubclient.Run(cmd.Context(), o)
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the hub's flags, -f, the clusters or placement, and
// -n.
func (o *CreateOptions) AddFlags(fs *pflag.FlagSet) {
	o.Hub.AddFlags(fs)
	fs.StringVarP(&o.File, "filename", "f", "", "YAML or JSON file of the objects to deliver (- for standard input)")
	fs.StringSliceVar(&o.Clusters, "clusters", nil, "clusters to deliver to: a ManifestWork in each one's namespace")
	fs.StringVar(&o.Placement, "placement", "", "deliver to the clusters this Placement selects: a ManifestWorkReplicaSet")
	fs.StringVarP(&o.Namespace, "namespace", "n", o.Namespace, "namespace of the placement and the ManifestWorkReplicaSet")
}

// Validate checks the flags, each problem in one line.
func (o *CreateOptions) Validate() error {
	if errs := validation.IsDNS1123Subdomain(o.Name); len(errs) > 0 {
		return fmt.Errorf("work name %q is not valid: %s", o.Name, errs[0])
	}
	if o.File == "" {
		return fmt.Errorf("give the objects to deliver with -f FILE (a YAML or JSON file, or - for standard input)")
	}
	if (len(o.Clusters) > 0) == (o.Placement != "") {
		return fmt.Errorf("give exactly one of --clusters or --placement")
	}
	var err error
	if o.Clusters, err = common.ClusterNames(o.Clusters); err != nil {
		return err
	}
	if o.Placement != "" {
		if errs := validation.IsDNS1123Subdomain(o.Placement); len(errs) > 0 {
			return fmt.Errorf("placement name %q is not valid: %s", o.Placement, errs[0])
		}
		if errs := validation.IsDNS1123Label(o.Namespace); len(errs) > 0 {
			return fmt.Errorf("namespace %q is not valid: %s", o.Namespace, errs[0])
		}
	}
	return nil
}

// Complete reads the manifests and builds the hub client.
func (o *CreateOptions) Complete() error {
	manifests, err := ReadManifests(o.File, o.In)
	if err != nil {
		return err
	}
	o.manifests = manifests
	return o.Hub.Complete()
}

// Run checks the targets, then creates (or, with Apply, updates).
func (o *CreateOptions) Run(ctx context.Context) error {
	spec := workv1.ManifestWorkSpec{Workload: workv1.ManifestsTemplate{Manifests: o.manifests}}
	if o.Placement != "" {
		return o.createReplicaSet(ctx, spec)
	}
	if err := checkClustersAccepted(ctx, o.Hub.Client, o.Clusters); err != nil {
		return fmt.Errorf("%w; %s", err, o.nothing())
	}
	existing := map[string]*workv1.ManifestWork{}
	var taken []string
	for _, c := range o.Clusters {
		w := &workv1.ManifestWork{}
		err := o.Hub.Client.Get(ctx, client.ObjectKey{Namespace: c, Name: o.Name}, w)
		switch {
		case err == nil:
			existing[c] = w
			taken = append(taken, c)
		case !apierrors.IsNotFound(err):
			return fmt.Errorf("reading ManifestWork %s/%s: %w", c, o.Name, err)
		}
	}
	if len(taken) > 0 && !o.Apply {
		return fmt.Errorf("ManifestWork %s already exists on cluster %s: change its objects with 'corral work apply %s -f %s --clusters %s' "+
			"(deleting it first would remove them from the cluster), or choose another name; nothing was created",
			o.Name, strings.Join(taken, ", "), o.Name, o.File, strings.Join(taken, ","))
	}
	for _, c := range o.Clusters {
		w, ok := existing[c]
		if !ok {
			w = &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: c, Name: o.Name}, Spec: spec}
			if err := o.Hub.Client.Create(ctx, w); err != nil {
				return fmt.Errorf("creating ManifestWork %s on cluster %s: %w", o.Name, c, err)
			}
			fmt.Fprintf(o.Out, "manifestwork %s created on cluster %s\n", o.Name, c)
			continue
		}
		changed, err := o.updateWorkload(ctx, w, &w.Spec.Workload)
		if err != nil {
			return fmt.Errorf("updating ManifestWork %s on cluster %s: %w", o.Name, c, err)
		}
		fmt.Fprintf(o.Out, "manifestwork %s %s on cluster %s\n", o.Name, changedWord(changed), c)
	}
	return nil
}

// updateWorkload gives obj, whose workload is at workload, the file's
// objects, and writes it if that changes it.
func (o *CreateOptions) updateWorkload(ctx context.Context, obj client.Object, workload *workv1.ManifestsTemplate) (bool, error) {
	if equality.Semantic.DeepEqual(workload.Manifests, o.manifests) {
		return false, nil
	}
	workload.Manifests = o.manifests
	return true, o.Hub.Client.Update(ctx, obj)
}

func changedWord(changed bool) string {
	if changed {
		return "updated"
	}
	return "unchanged"
}

// nothing says what a refusal left undone.
func (o *CreateOptions) nothing() string {
	if o.Apply {
		return "nothing was written"
	}
	return "nothing was created"
}

// createReplicaSet checks the placement, then creates the set (or, with
// Apply, updates the objects of the set on that placement).
func (o *CreateOptions) createReplicaSet(ctx context.Context, spec workv1.ManifestWorkSpec) error {
	err := o.Hub.Client.Get(ctx, client.ObjectKey{Namespace: o.Namespace, Name: o.Placement}, &clusterv1beta1.Placement{})
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("no Placement %s in namespace %s on the hub: create it first, or give its namespace with -n; %s", o.Placement, o.Namespace, o.nothing())
	}
	if err != nil {
		return fmt.Errorf("reading Placement %s/%s: %w", o.Namespace, o.Placement, err)
	}
	if o.Apply {
		set := &workv1alpha1.ManifestWorkReplicaSet{}
		err := o.Hub.Client.Get(ctx, client.ObjectKey{Namespace: o.Namespace, Name: o.Name}, set)
		switch {
		case err == nil:
			return o.updateReplicaSet(ctx, set)
		case !apierrors.IsNotFound(err):
			return fmt.Errorf("reading ManifestWorkReplicaSet %s/%s: %w", o.Namespace, o.Name, err)
		}
	}
	set := &workv1alpha1.ManifestWorkReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: o.Namespace, Name: o.Name},
		Spec: workv1alpha1.ManifestWorkReplicaSetSpec{
			ManifestWorkTemplate: spec,
			PlacementRefs:        []workv1alpha1.LocalPlacementReference{{Name: o.Placement}},
		},
	}
	if err := o.Hub.Client.Create(ctx, set); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("ManifestWorkReplicaSet %s already exists in namespace %s: change its objects with 'corral work apply %s -f %s --placement %s -n %s' "+
				"(deleting it first would remove them from every cluster), or choose another name",
				o.Name, o.Namespace, o.Name, o.File, o.Placement, o.Namespace)
		}
		return fmt.Errorf("creating ManifestWorkReplicaSet %s/%s: %w", o.Namespace, o.Name, err)
	}
	fmt.Fprintf(o.Out, "manifestworkreplicaset %s created in namespace %s, on the clusters placement %s selects\n", o.Name, o.Namespace, o.Placement)
	return nil
}

// updateReplicaSet gives the set the file's objects, if it is on the
// placement given; its rollout strategy then rolls them out.
func (o *CreateOptions) updateReplicaSet(ctx context.Context, set *workv1alpha1.ManifestWorkReplicaSet) error {
	var refs []string
	for _, r := range set.Spec.PlacementRefs {
		refs = append(refs, r.Name)
	}
	if !slices.Contains(refs, o.Placement) {
		return fmt.Errorf("ManifestWorkReplicaSet %s/%s is on placement %s, not %s: apply changes only its objects; nothing was written",
			o.Namespace, o.Name, strings.Join(refs, ", "), o.Placement)
	}
	changed, err := o.updateWorkload(ctx, set, &set.Spec.ManifestWorkTemplate.Workload)
	if err != nil {
		return fmt.Errorf("updating ManifestWorkReplicaSet %s/%s: %w", o.Namespace, o.Name, err)
	}
	fmt.Fprintf(o.Out, "manifestworkreplicaset %s %s in namespace %s\n", o.Name, changedWord(changed), o.Namespace)
	return nil
}

// checkClustersAccepted says, in one line, which clusters are unknown or
// not (yet) accepted by the hub.
func checkClustersAccepted(ctx context.Context, c client.Reader, clusters []string) error {
	var unknown, notAccepted []string
	for _, name := range clusters {
		mc := &clusterv1.ManagedCluster{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, mc); err != nil {
			if apierrors.IsNotFound(err) {
				unknown = append(unknown, name)
				continue
			}
			return fmt.Errorf("reading cluster %s: %w", name, err)
		}
		if !mc.Spec.HubAcceptsClient || !meta.IsStatusConditionTrue(mc.Status.Conditions, clusterv1.ManagedClusterConditionHubAccepted) {
			notAccepted = append(notAccepted, name)
		}
	}
	switch {
	case len(unknown) > 0:
		return fmt.Errorf("no cluster %s on the hub (see corral get clusters)", strings.Join(unknown, ", "))
	case len(notAccepted) > 0:
		return fmt.Errorf("cluster %s is not accepted by the hub yet: accept it first (corral accept %s)", strings.Join(notAccepted, ", "), strings.Join(notAccepted, " "))
	}
	return nil
}
